/**
 * Failure of document extraction, carrying the parser family's code (SPEC "Document parser codes").
 * 400-001: the file is not something we can read (wrong kind, encrypted, corrupt, over a limit).
 * 500-001: we failed while processing a file that looked valid.
 */
export class DocumentError extends Error {
  constructor(
    readonly code: '400-001' | '500-001',
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'DocumentError';
  }
}

import { describe, expect, it, jest } from '@jest/globals';
import type { ExtractedDocument } from '../src/types.js';

// An extractor that fails the way a library bug would: parseDocument must not let it escape raw.
jest.unstable_mockModule('../src/txt/index.js', () => ({
  extractTxt: async (): Promise<ExtractedDocument> => {
    throw new TypeError("Cannot read properties of undefined (reading 'length')");
  },
  extractMd: async (): Promise<ExtractedDocument> => {
    throw new TypeError('not used here');
  },
}));

const { parseDocument } = await import('../src/parse-document.js');
const { DocumentError } = await import('../src/errors.js');

describe('parseDocument error mapping', () => {
  it('wraps unexpected extractor exceptions into 500-001', async () => {
    const failure = parseDocument(Buffer.from('plain text'), { declaredType: 'txt', output: 'plain' });
    await expect(failure).rejects.toBeInstanceOf(DocumentError);
    await expect(failure).rejects.toMatchObject({
      code: '500-001',
      message: 'Processing error',
      details: ["txt extraction failed: Cannot read properties of undefined (reading 'length')"],
    });
  });

  it('keeps DocumentErrors as they are', async () => {
    // The .doc reader is real here: a damaged OLE file is refused with its own 400-001.
    const failure = parseDocument(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(1024)]), { output: 'plain' });
    await expect(failure).rejects.toMatchObject({ code: '400-001', message: 'The document is damaged' });
  });
});

/** Types of own-code-module.mjs (plain JavaScript: run.mjs loads it before any TypeScript can load). */
export function ownCodeModuleUrl(entry: URL, options?: { sourceMap?: boolean }): Promise<string>;
export function buildFailure(error: unknown): string;

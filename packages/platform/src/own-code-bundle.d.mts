/** Types of own-code-bundle.mjs (plain JavaScript: run.mjs loads it before any TypeScript can load). */
export function bundleOwnCode(entry: URL, options?: { sourceMap?: boolean }): Promise<string>;
export function bundleOwnCodeWithInputs(entry: URL, options?: { sourceMap?: boolean }): Promise<{ code: string; inputs: string[] }>;
export function dataUrlModule(code: string, entry: URL): string;

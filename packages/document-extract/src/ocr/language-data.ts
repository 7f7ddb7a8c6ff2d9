import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Folder holding `eng.traineddata.gz`, read from disk by tesseract.js: nothing is downloaded at
 * run time. The model is tessdata_fast's (packages/tessdata-eng-fast): tesseract.js reads a page
 * ~35 % faster with it than with the `best_int` network it fetches by default, with the same
 * word F1 on the corpus (README, Benchmarks).
 */
export function englishDataPath(): string {
  return path.dirname(require.resolve('@gleaner/tessdata-eng-fast/package.json'));
}

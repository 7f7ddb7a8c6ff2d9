import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Folder holding `eng.traineddata.gz`, read from disk by tesseract.js: nothing is downloaded at
 * run time. `4.0.0_best_int` is the LSTM-only model tesseract.js fetches by default; the package's
 * own `langPath` export points at `4.0.0`, which also carries the legacy engine we do not use.
 */
export function englishDataPath(): string {
  return path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

/**
 * Document extraction speed, side by side in one run, over the corpus's real files:
 *   text PDFs   extractPdf pages/s  vs  poppler's pdftotext (default mode) on the same files
 *   OCR         on the same prepared images (PBM or PGM), like with like (same model): latency with one worker
 *               against native tesseract (LSTM, PSM 3, OMP_THREAD_LIMIT=1) one page at a time, and throughput of
 *               our pool of N workers against N native processes at once (N = cores); plus
 *               extractImage end to end
 *   memory      peak RSS of a real parser-worker process with its defaults (PARSER_CONCURRENCY =
 *               cores - 1, PARSER_OCR_WORKERS = cores), as the image starts it, parsing through the API the
 *               whole corpus (every type, OCR included) and the structure corpus
 *               (../shared/corpus/docs-structure: tables, headings) in markdown, all submitted at once
 * Each target is printed with PASS or FAIL. A reference tool that is not installed is skipped,
 * and the run says so (apt-get install poppler-utils tesseract-ocr tesseract-ocr-eng).
 * Run: node --import tsx bench/documents.ts
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createOcrEngine } from '@gleaner/document-extract';
import { englishDataPath } from '../packages/document-extract/src/ocr/language-data.js';
import { reportParserMemoryRuns } from './parser-memory.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');
const manifest = JSON.parse(readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string; type: string; pages?: number; expected?: string }> };
const read = (relative: string) => readFileSync(path.join(corpus, relative));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const pad = (value: string | number, width: number) => String(value).padStart(width);

function installed(tool: string): boolean {
  return spawnSync(tool, ['-v'], { stdio: 'ignore' }).error === undefined;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, (performance.now() - started) / 1000];
}

const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

const cores = os.availableParallelism();
console.log(`Document extraction benchmark (${cores} cores, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);

// --- text PDFs -----------------------------------------------------------------------------
const { extractPdf } = await import('../packages/document-extract/src/pdf/index.js');
// Text PDFs only: scanned ones would measure OCR, which has its own section.
const textPdfs = ['asciihexdecode.pdf', 'bug900822-owner-password.pdf', 'freeculture.pdf', 'issue14847.pdf', 'issue17492-form.pdf', 'pdf20-page-level-output-intent.pdf', 'pdf20-utf8-test.pdf', 'tracemonkey.pdf'].map((f) => `pdf/${f}`);
const pdfPages = textPdfs.reduce((n, f) => n + (manifest.files.find((m) => m.path === f)?.pages ?? 0), 0);
await extractPdf(read(textPdfs[2]), { output: 'plain' }); // warm-up: module load, font data
const ourPdf: number[] = [];
for (let run = 0; run < 3; run++) {
  const [, seconds] = await timed(async () => {
    for (const file of textPdfs) await extractPdf(read(file), { output: 'markdown' });
  });
  ourPdf.push(pdfPages / seconds);
}
console.log(`Text PDFs: ${textPdfs.length} files, ${pdfPages} pages (median of 3 runs)`);
console.log(`  extractPdf (markdown)  ${pad(median(ourPdf).toFixed(0), 6)} pages/s`);
if (installed('pdftotext')) {
  const reference: number[] = [];
  for (let run = 0; run < 3; run++) {
    const [, seconds] = await timed(async () => {
      for (const file of textPdfs) execFileSync('pdftotext', ['-enc', 'UTF-8', path.join(corpus, file), '-'], { stdio: ['ignore', 'ignore', 'ignore'] });
    });
    reference.push(pdfPages / seconds);
  }
  const ratio = median(ourPdf) / median(reference);
  console.log(`  pdftotext              ${pad(median(reference).toFixed(0), 6)} pages/s   ours = ${ratio.toFixed(2)}x   target >= 0.5x (markdown, tables and headings found): ${verdict(ratio >= 0.5)}`);
} else {
  console.log('  pdftotext: not installed (apt-get install poppler-utils), skipped; target >= 0.5x: not measured');
}

// --- OCR -----------------------------------------------------------------------------------
const { prepareForOcr } = await import('../packages/document-extract/src/ocr/index.js');
const { extractImage } = await import('../packages/document-extract/src/image/index.js');
const ocrImages = ['phototest.tif', 'testocr.jpg', '8071_093.3B.tif', 'meditations.jpg', 'testRotated+10.png'].map((f) => `image/${f}`);
const prepared = await Promise.all(ocrImages.map((f) => prepareForOcr(read(f))));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-'));
const pagePaths = prepared.map((image, i) => {
  // Two-tone pages are prepared as PBM (one bit a pixel), photos as PGM (grey).
  const file = path.join(tmp, `page-${i}.${image.subarray(0, 2).toString('latin1') === 'P4' ? 'pbm' : 'pgm'}`);
  writeFileSync(file, image);
  return file;
});
console.log(`\nOCR: ${ocrImages.length} corpus images, prepared once (enlarged towards 300 DPI, two-tone ones thresholded), the same files for both`);

const nativeInstalled = installed('tesseract');
// Like with like: native tesseract gets our model (tessdata_fast, packages/tessdata-eng-fast),
// unpacked here. Where the system's own model is another file, it is timed too, for information.
const ourModel = path.join(tmp, 'tessdata');
mkdirSync(ourModel);
const ourModelBytes = gunzipSync(readFileSync(path.join(englishDataPath(), 'eng.traineddata.gz')));
writeFileSync(path.join(ourModel, 'eng.traineddata'), ourModelBytes);
const systemModelIsOurs = (() => {
  try {
    const dir = /"([^"]+)"/.exec(execFileSync('tesseract', ['--list-langs'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))?.[1];
    return dir !== undefined && readFileSync(path.join(dir, 'eng.traineddata')).equals(ourModelBytes);
  } catch {
    return false;
  }
})();
const nativeEnv = { ...process.env, OMP_THREAD_LIMIT: '1' };
/** Native tesseract over every prepared page with `parallel` processes at once; seconds in all. */
async function nativeRun(parallel: number, tessdata: string | null): Promise<number> {
  const args = (file: string) => [...(tessdata ? ['--tessdata-dir', tessdata] : []), file, 'stdout', '--oem', '1', '--psm', '3', '--dpi', '300', '-l', 'eng'];
  const [, seconds] = await timed(async () => {
    const queue = [...pagePaths];
    const lane = async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        await new Promise<void>((resolve, reject) => execFile('tesseract', args(file), { env: nativeEnv }, (error) => (error ? reject(error) : resolve())));
      }
    };
    await Promise.all(Array.from({ length: parallel }, lane));
  });
  return seconds;
}

// Rounds alternate between the two sides, so that a slow spell of the host (rounds of one
// setting moved by ±12 % on these machines) falls on both; the figures are medians over rounds.
const OCR_ROUNDS = 3;
const perPage = (seconds: number) => `${pad((seconds / prepared.length).toFixed(2), 6)} s/page ${pad((prepared.length / seconds).toFixed(2), 6)} pages/s`;
for (const workers of [1, cores]) {
  const engine = await createOcrEngine({ workers });
  // Warm-up: WASM compile, and every worker started.
  await Promise.all(Array.from({ length: workers }, () => engine.recognize(prepared[0])));
  const ours: number[] = [];
  const native: number[] = [];
  for (let round = 0; round < OCR_ROUNDS; round++) {
    ours.push((await timed(() => Promise.all(prepared.map((image) => engine.recognize(image, { dpi: 300 })))))[1]);
    if (nativeInstalled) native.push(await nativeRun(workers, ourModel));
  }
  await engine.close();
  console.log(workers === 1 ? '  latency: 1 worker / 1 process, one page at a time' : `  throughput: ${workers} workers / ${workers} processes at once`);
  console.log(`    tesseract.js (our pool)          ${perPage(median(ours))}   (median of ${OCR_ROUNDS} rounds)`);
  if (!nativeInstalled) {
    console.log('    native tesseract: not installed (apt-get install tesseract-ocr tesseract-ocr-eng), skipped');
    continue;
  }
  const ratio = median(native.map((seconds, round) => seconds / ours[round]));
  console.log(`    native tesseract, same model     ${perPage(median(native))}   ours = ${ratio.toFixed(2)}x (median of the rounds' ratios)`);
  if (systemModelIsOurs) console.log("    (the system's own model is the same file)");
  else {
    const system = await nativeRun(workers, null);
    console.log(`    native tesseract, system model   ${perPage(system)}   ours = ${(system / median(ours)).toFixed(2)}x (information, one round)`);
  }
  if (workers === cores) console.log(`    OCR throughput target >= 0.8x native (same model, same parallelism): ${verdict(ratio >= 0.8)}`);
}
if (!nativeInstalled) console.log('  OCR throughput target >= 0.8x native: not measured');

const engine = await createOcrEngine({ workers: 1 });
const [, endToEnd] = await timed(async () => {
  for (const file of ocrImages) await extractImage(read(file), file.endsWith('.jpg') ? 'jpeg' : file.endsWith('.png') ? 'png' : 'tiff', { output: 'plain', ocr: engine });
});
await engine.close();
console.log(`  extractImage end to end (decode, skew and orientation, OCR), 1 worker ${pad((endToEnd / ocrImages.length).toFixed(2), 6)} s/page`);
rmSync(tmp, { recursive: true, force: true });

// --- memory --------------------------------------------------------------------------------
console.log('');
await reportParserMemoryRuns();

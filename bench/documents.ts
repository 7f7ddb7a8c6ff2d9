/**
 * Document extraction speed, side by side in one run, over the corpus's real files:
 *   text PDFs   extractPdf pages/s  vs  poppler's pdftotext (default mode) on the same files
 *   OCR         our tesseract.js engine s/page  vs  native tesseract (LSTM, PSM 3,
 *               OMP_THREAD_LIMIT=1) on the same prepared PNGs; plus extractImage end to end
 *   memory      peak RSS of a fresh process set up as parser-worker is, parsing the whole corpus
 *               (every type, OCR included) in the service's own parse thread, one job at a time
 * A reference tool that is not installed is skipped, and the run says so.
 * Run: node --import tsx bench/documents.ts
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOcrEngine } from '@gleaner/document-extract';
import type { ParseTask, ParseTaskResult } from '../services/parser-worker/src/parse-thread.js';

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

/** Peak RSS of this process, in MB (maxRSS is in KiB). */
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

/**
 * Peak RSS since the last call, in MB, from Linux's VmHWM, which writing 5 to clear_refs resets;
 * null elsewhere. Resetting it resets maxRSS too, so with it the peak is the largest of these.
 */
function peakSinceLastMb(): number | null {
  try {
    const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
    writeFileSync('/proc/self/clear_refs', '5');
    return peak;
  } catch {
    return null;
  }
}

/** PARSER_JOB_BUDGET_MS's default: no corpus file comes near it. */
const PARSE_BUDGET_MS = 10 * 60_000;

// --- memory: runs in a child process so that the figure is the parser worker's alone ---------
// The child is what parser-worker runs: its main thread loads the service's modules, and every
// file goes to a parse thread of the service's own pool (createParsePool), one job at a time
// (PARSER_CONCURRENCY=1: one parse thread, one OCR worker while a document needs it).
async function rssChild(): Promise<void> {
  const { createParsePool } = await import('@gleaner/parser-worker');
  const { createLazyOcrEngine } = await import('@gleaner/document-extract/ocr');
  const ocr = createLazyOcrEngine({ workers: 1 });
  const pool = createParsePool(1, ocr);
  let peak = peakSinceLastMb() ?? 0;
  let worst = { file: '', mb: 0 };
  const unexpected: string[] = [];
  for (const file of manifest.files) {
    const bytes = read(file.path);
    const task: ParseTask = { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), declaredType: file.type, output: 'markdown', ocrParallelism: ocr.parallelism };
    // Files that must be refused (encrypted ones) are parsed too: refusing is part of the work.
    const failed = await pool.run<ParseTask, ParseTaskResult>(task, PARSE_BUDGET_MS).then(
      () => false,
      () => true,
    );
    if (failed !== Boolean(file.expected)) unexpected.push(file.path);
    const filePeak = peakSinceLastMb();
    if (filePeak !== null && filePeak > worst.mb) worst = { file: file.path, mb: filePeak };
    peak = Math.max(peak, filePeak ?? 0);
  }
  await pool.close();
  await ocr.close();
  process.stdout.write(JSON.stringify({ files: manifest.files.length, peakRssMb: Math.max(peak, peakRssMb()), worst, unexpected }));
}

if (process.argv.includes('--rss-child')) {
  await rssChild();
  process.exit(0);
}

const cores = os.availableParallelism();
console.log(`Document extraction benchmark (${cores} cores, Node ${process.version})\n`);

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
  console.log(`  pdftotext              ${pad(median(reference).toFixed(0), 6)} pages/s   ours = ${(median(ourPdf) / median(reference)).toFixed(2)}x (target >= 0.3x)`);
} else {
  console.log('  pdftotext: not installed (apt-get install poppler-utils), skipped');
}

// --- OCR -----------------------------------------------------------------------------------
const { prepareForOcr } = await import('../packages/document-extract/src/ocr/index.js');
const { extractImage } = await import('../packages/document-extract/src/image/index.js');
const ocrImages = ['phototest.tif', 'testocr.jpg', '8071_093.3B.tif', 'meditations.jpg', 'testRotated+10.png'].map((f) => `image/${f}`);
const prepared = await Promise.all(ocrImages.map((f) => prepareForOcr(read(f))));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-'));
const pngPaths = prepared.map((png, i) => {
  const file = path.join(tmp, `page-${i}.png`);
  writeFileSync(file, png);
  return file;
});
console.log(`\nOCR: ${ocrImages.length} corpus images, prepared once (grey, enlarged towards 300 DPI), same PNGs for both`);

for (const workers of [1, cores]) {
  const engine = await createOcrEngine({ workers });
  await engine.recognize(prepared[0]); // warm-up: WASM compile, first worker
  const [, seconds] = await timed(() => Promise.all(prepared.map((png) => engine.recognize(png, { dpi: 300 }))));
  console.log(`  tesseract.js, ${workers} worker${workers > 1 ? 's' : ' '} (pool)  ${pad((seconds / prepared.length).toFixed(2), 6)} s/page`);
  if (workers === cores) {
    const ours = seconds / prepared.length;
    if (installed('tesseract')) {
      const [, native] = await timed(async () => {
        for (const file of pngPaths) execFileSync('tesseract', [file, 'stdout', '--oem', '1', '--psm', '3', '--dpi', '300', '-l', 'eng'], { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['ignore', 'ignore', 'ignore'] });
      });
      const perPage = native / prepared.length;
      console.log(`  native tesseract, 1 thread, sequential ${pad(perPage.toFixed(2), 6)} s/page   throughput ours = ${(perPage / ours).toFixed(2)}x (target >= 0.8x)`);
    } else {
      console.log('  native tesseract: not installed (apt-get install tesseract-ocr tesseract-ocr-eng), skipped');
    }
  }
  await engine.close();
}

const engine = await createOcrEngine({ workers: 1 });
const [, endToEnd] = await timed(async () => {
  for (const file of ocrImages) await extractImage(read(file), file.endsWith('.jpg') ? 'jpeg' : file.endsWith('.png') ? 'png' : 'tiff', { output: 'plain', ocr: engine });
});
await engine.close();
console.log(`  extractImage end to end (decode, skew and orientation, OCR), 1 worker ${pad((endToEnd / ocrImages.length).toFixed(2), 6)} s/page`);
rmSync(tmp, { recursive: true, force: true });

// --- memory --------------------------------------------------------------------------------
// The child gets the environment the image gives every service (ENV of infra/Dockerfile's last
// stage): the allocator setting there changes the figure by ~150 MB.
const dockerfile = readFileSync(path.join(repoRoot, 'infra/Dockerfile'), 'utf8');
const imageEnv = Object.fromEntries([...dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')).matchAll(/^ENV\s+([A-Za-z_]\w*)=(\S+)/gm)].map((m) => [m[1], m[2]]));
const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--rss-child'], { cwd: repoRoot, env: { ...process.env, ...imageEnv }, encoding: 'utf8', maxBuffer: 1 << 20 });
if (child.status === 0) {
  const { files, peakRssMb: rss, worst, unexpected } = JSON.parse(child.stdout) as { files: number; peakRssMb: number; worst: { file: string; mb: number }; unexpected: string[] };
  console.log('');
  if (unexpected.length > 0) console.log(`Memory: these files did not parse (or were not refused) as the manifest expects: ${unexpected.join(', ')}`);
  if (worst.file) console.log(`Memory: highest while parsing ${worst.file} (${worst.mb.toFixed(0)} MB)`);
  const settings = Object.entries(imageEnv).map(([k, v]) => `${k}=${v}`).join(' ');
  console.log(`Memory: peak RSS of parser-worker (1 parse thread, 1 OCR worker; image env ${settings}) parsing all ${files} corpus files (markdown) ${rss.toFixed(0)} MB (target < 500 MB)`);
} else {
  console.log(`\nMemory: the measuring process failed (${child.status}): ${child.stderr.slice(-500)}`);
}

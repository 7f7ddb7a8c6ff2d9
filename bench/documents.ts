/**
 * Document extraction speed, side by side in one run, over the corpus's real files:
 *   text PDFs   extractPdf pages/s  vs  poppler's pdftotext (default mode) on the same files
 *   OCR         on the same prepared images (PBM or PGM), like with like (same model): latency with one worker
 *               against native tesseract (LSTM, PSM 3, OMP_THREAD_LIMIT=1) one page at a time, and throughput of
 *               our pool of N workers against N native processes at once (N = cores); plus
 *               extractImage end to end
 *   memory      peak RSS of a fresh process set up as parser-worker is by default (PARSER_CONCURRENCY
 *               and PARSER_OCR_WORKERS = cores), parsing the whole corpus (every type, OCR included)
 *               and the structure corpus (../shared/corpus/docs-structure: tables, headings) in
 *               markdown with that many jobs at once
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
import type { ParseTask, ParseTaskResult } from '../services/parser-worker/src/parse-thread.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');
const manifest = JSON.parse(readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string; type: string; pages?: number; expected?: string }> };
const structureCorpus = path.resolve(repoRoot, '../shared/corpus/docs-structure');
const structureFiles = (JSON.parse(readFileSync(path.join(structureCorpus, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string }> }).files.map((f) => path.join(structureCorpus, f.path));
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

/** Resident set size of this process now, in MB (Linux); null elsewhere. */
function rssNowMb(): number | null {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
  } catch {
    return null;
  }
}

const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

// --- memory: runs in a child process so that the figure is the parser worker's alone ---------
// The child is what parser-worker runs with its defaults: its main thread owns the OCR pool
// (PARSER_OCR_WORKERS = cores), and files go to the service's own parse threads
// (createParsePool, PARSER_CONCURRENCY = cores), that many at once, as BullMQ would hand them.
async function rssChild(): Promise<void> {
  const { createParsePool, createSharedOcrEngine, ocrShare } = await import('@gleaner/parser-worker');
  const concurrency = os.availableParallelism();
  const ocr = createSharedOcrEngine(concurrency);
  const pool = createParsePool(concurrency, ocr);
  peakSinceLastMb();
  const inFlight = new Set<string>();
  let sampled = { mb: 0, files: [] as string[] };
  // Sampled to say which files were being parsed when memory was highest.
  const sampler = setInterval(() => {
    const mb = rssNowMb();
    if (mb !== null && mb > sampled.mb) sampled = { mb, files: [...inFlight] };
  }, 100);
  const unexpected: string[] = [];
  // The structure corpus's files are parsed as they come (types this build does not read are refused at once).
  const queue: Array<{ path: string; type: string; expected?: string; structure?: boolean }> = [...manifest.files, ...structureFiles.map((file) => ({ path: file, type: path.extname(file).slice(1), structure: true }))];
  const lane = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const bytes = file.structure ? readFileSync(file.path) : read(file.path);
      const task: ParseTask = { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), declaredType: file.type, output: 'markdown', ocrParallelism: ocrShare(ocr.parallelism, concurrency) };
      inFlight.add(file.path);
      // Files that must be refused (encrypted ones) are parsed too: refusing is part of the work.
      const failed = await pool.run<ParseTask, ParseTaskResult>(task, PARSE_BUDGET_MS).then(
        () => false,
        () => true,
      );
      inFlight.delete(file.path);
      if (!file.structure && failed !== Boolean(file.expected)) unexpected.push(file.path);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  clearInterval(sampler);
  const peak = Math.max(peakSinceLastMb() ?? 0, peakRssMb());
  await pool.close();
  await ocr.close();
  process.stdout.write(JSON.stringify({ files: manifest.files.length + structureFiles.length, concurrency, peakRssMb: peak, sampled, unexpected }));
}

if (process.argv.includes('--rss-child')) {
  await rssChild();
  process.exit(0);
}

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
// The child gets the environment the image gives every service (ENV of infra/Dockerfile's last
// stage): the allocator setting there changes the figure by ~150 MB. It starts as the service
// does, through run.mjs (no module loader in the process).
const dockerfile = readFileSync(path.join(repoRoot, 'infra/Dockerfile'), 'utf8');
const imageEnv = Object.fromEntries([...dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')).matchAll(/^ENV\s+([A-Za-z_]\w*)=(\S+)/gm)].map((m) => [m[1], m[2]]));
const child = spawnSync(process.execPath, [path.join(repoRoot, 'packages/platform/src/run.mjs'), fileURLToPath(import.meta.url), '--rss-child'], { cwd: repoRoot, env: { ...process.env, ...imageEnv }, encoding: 'utf8', maxBuffer: 1 << 20 });
if (child.status === 0) {
  const { files, concurrency, peakRssMb: rss, sampled, unexpected } = JSON.parse(child.stdout) as { files: number; concurrency: number; peakRssMb: number; sampled: { mb: number; files: string[] }; unexpected: string[] };
  console.log('');
  if (unexpected.length > 0) console.log(`Memory: these files did not parse (or were not refused) as the manifest expects: ${unexpected.join(', ')}`);
  if (sampled.files.length) console.log(`Memory: highest sample ${sampled.mb.toFixed(0)} MB while parsing ${sampled.files.join(', ')}`);
  const settings = Object.entries(imageEnv).map(([k, v]) => `${k}=${v}`).join(' ');
  console.log(`Memory: peak RSS of parser-worker (defaults: ${concurrency} parse threads, ${concurrency} OCR workers; image env ${settings}) parsing all ${files} files of both corpora (markdown) ${rss.toFixed(0)} MB   target <= 450 MB: ${verdict(rss <= 450)}`);
} else {
  console.log(`\nMemory: the measuring process failed (${child.status}): ${child.stderr.slice(-500)}`);
}

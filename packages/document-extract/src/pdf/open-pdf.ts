import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { DocumentError } from '../errors.js';
import { checkStreamBudget } from './stream-budget.js';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type LoadingTask = ReturnType<PdfJs['getDocument']>;
export type PdfDocument = Awaited<LoadingTask['promise']>;
export type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

const require = createRequire(import.meta.url);
/** Fonts, CMaps and decoders ship inside pdfjs-dist; Node reads these paths with fs (they need the trailing slash). */
const PDFJS_DIR = path.dirname(require.resolve('pdfjs-dist/package.json'));

/** Same API as pdf.mjs, whose types are used. */
const MINIFIED_BUILD: string = 'pdfjs-dist/legacy/build/pdf.min.mjs';
let pdfjs: Promise<PdfJs> | null = null;
/**
 * The worker side is the readable build, which patches/pdfjs-dist@5.6.205.patch changes (text
 * states copied with their class's prototype, the per-glyph transform multiplied out, streams
 * inflated by Node's zlib synchronously, images of read-only operator lists not decoded; the
 * source map comment removed): text PDFs parse ~1.6x as fast (bench:documents), to the same text.
 */
const PATCHED_WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

/**
 * Built-ins that the legacy build's core-js polyfills replace although Node has them: they fail
 * core-js's checks for proposals and edge cases pdf.js does not use (array-likes over 2^32
 * elements, JSON.parse's source text, JSON.rawJSON), and the replacements are ordinary functions.
 * The polyfilled Array.prototype.push alone was 3.6 times slower than the native one and took
 * ~9 % of a text PDF's extraction, every push of the thread included. Restored once pdf.js and
 * its worker side have loaded. (What core-js adds, such as Promise.withResolvers on Node 20,
 * stays: pdf.js needs it.)
 */
const NATIVE_BUILT_INS: Array<[object, PropertyKey]> = [
  [Array.prototype, 'push'],
  [JSON, 'parse'],
  [JSON, 'stringify'],
  [Function.prototype, 'toString'],
];

async function importKeepingNativeBuiltIns<T>(load: () => Promise<T>): Promise<T> {
  const natives = NATIVE_BUILT_INS.map(([owner, key]) => [owner, key, Object.getOwnPropertyDescriptor(owner, key)!] as const);
  try {
    return await load();
  } finally {
    for (const [owner, key, descriptor] of natives) Object.defineProperty(owner, key, descriptor);
  }
}

/**
 * pdf.js is loaded on first use (the only module-level state). The legacy build is the one that
 * runs on Node 20 (the modern one needs Promise.withResolvers). Neither file loaded carries a
 * source map comment (the API side is the minified build, the worker side's is patched out), which
 * Node would otherwise parse and keep. In Node the "worker"
 * runs on this thread: its module is loaded here too (it registers itself as
 * globalThis.pdfjsWorker, which pdf.js then uses), so that the built-ins both replace are
 * restored once (see NATIVE_BUILT_INS).
 */
export const loadPdfJs = (): Promise<PdfJs> =>
  (pdfjs ??= importKeepingNativeBuiltIns(async () => {
    // By file URL: the names are strings (for the types above), which no bundler resolves, and a
    // parse thread's bundled code (a data: URL module) cannot resolve package names itself.
    const [buildUrl, workerUrl] = [MINIFIED_BUILD, PATCHED_WORKER].map((file) => pathToFileURL(require.resolve(file)).href);
    const lib = (await import(buildUrl)) as PdfJs;
    await import(workerUrl);
    lib.GlobalWorkerOptions.workerSrc = workerUrl;
    return lib;
  }));

export const MAX_EMBEDDED_IMAGE_PIXELS = 30_000_000;
/** Bytes after the last end-of-file marker beyond which a file is taken as cut short. */
const EOF_SLACK = 4096;

/**
 * pdf.js rebuilds a damaged cross-reference table, so a file cut in half may open and show only
 * the pages it still holds. A PDF ends with `%%EOF`; when the last one is missing, or followed
 * by more than a little slack (a linearised file has one near its start), the file is truncated.
 */
function truncationDetail(bytes: Uint8Array): string | null {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = tail.lastIndexOf('%%EOF');
  if (at < 0) return 'the PDF is truncated or damaged: it has no end-of-file marker';
  if (bytes.length - at > EOF_SLACK) return 'the PDF is truncated or damaged: data continues past its last end-of-file marker';
  return null;
}

/**
 * Whether the file holds an image pdf.js will skip (over MAX_EMBEDDED_IMAGE_PIXELS). pdf.js drops
 * such images silently, so a page showing only one reads as blank. Image XObjects are streams, and
 * streams never sit inside compressed object streams, so their dictionaries are in the raw bytes;
 * a size given by indirect reference is missed.
 */
export function holdsOversizedImage(bytes: Uint8Array): boolean {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const image = /\/Subtype\s*\/Image/g;
  for (let match = image.exec(raw); match; match = image.exec(raw)) {
    const start = raw.lastIndexOf('<<', match.index);
    const end = raw.indexOf('stream', match.index);
    const dict = raw.slice(start < 0 ? match.index : start, end < 0 ? match.index + 512 : Math.min(end, match.index + 2048));
    const width = Number(/\/Width\s+(\d+)/.exec(dict)?.[1] ?? 0);
    const height = Number(/\/Height\s+(\d+)/.exec(dict)?.[1] ?? 0);
    if (width * height > MAX_EMBEDDED_IMAGE_PIXELS) return true;
  }
  return false;
}

function openError(error: unknown): DocumentError {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  // PasswordException is not exported by pdfjs-dist, so the name is what can be tested.
  if (name === 'PasswordException') return new DocumentError('400-001', 'Password-protected PDFs are not supported', ['The PDF requires a password to open']);
  return new DocumentError('400-001', 'Invalid PDF file', [`the PDF could not be read: ${message.slice(0, 200)}`]);
}

/**
 * The file's fault, found after it opened: pdf.js reports malformed content (a flate stream that
 * does not inflate, a page tree that loops) as a FormatError, which reaches this side of its
 * message handler as an UnknownErrorException carrying "FormatError: …" in its details. Such
 * files are bad input (400-001, issue 24), not our failure; other errors stay ours (null).
 */
export function damagedPdfError(error: unknown): DocumentError | null {
  if (!(error instanceof Error)) return null;
  const details = (error as { details?: unknown }).details;
  const fromFormat = error.name === 'FormatError' || error.name === 'InvalidPDFException' || (typeof details === 'string' && /^(FormatError|InvalidPDFException):/.test(details));
  if (!fromFormat) return null;
  return new DocumentError('400-001', 'Invalid PDF file', [`the PDF is damaged: ${error.message.slice(0, 200)}`]);
}

export interface OpenedPdf {
  pdfjs: PdfJs;
  doc: PdfDocument;
  /** Frees the document and its worker-side state; safe to call more than once. */
  destroy: () => Promise<void>;
}

/**
 * Opens a PDF with eval disabled and assets read from the package folder. Password-protected
 * files (a user password), unreadable or truncated ones and decompression bombs fail with
 * 400-001; a file with only an owner password opens normally.
 */
export async function openPdf(bytes: Uint8Array): Promise<OpenedPdf> {
  const truncated = truncationDetail(bytes);
  if (truncated) throw new DocumentError('400-001', 'Invalid PDF file', [truncated]);
  // pdf.js has no limit on what a stream inflates to: bombs are refused before it sees them.
  checkStreamBudget(bytes);
  const lib = await loadPdfJs();
  const task = lib.getDocument({
    // pdf.js transfers (detaches) the buffer it is given: it gets a copy.
    data: new Uint8Array(bytes),
    standardFontDataUrl: `${PDFJS_DIR}/standard_fonts/`,
    cMapUrl: `${PDFJS_DIR}/cmaps/`,
    cMapPacked: true,
    // JPEG 2000 and JBIG2 decoders; without them such scans render blank.
    wasmUrl: `${PDFJS_DIR}/wasm/`,
    iccUrl: `${PDFJS_DIR}/iccs/`,
    // Larger embedded images are skipped rather than decoded: drawing one costs ~11 bytes a
    // pixel at once (decoded, RGBA, canvas copy), and 30 MP is an A4 page scanned at 550 DPI.
    maxImageSize: MAX_EMBEDDED_IMAGE_PIXELS,
    disableFontFace: true,
    useSystemFonts: false,
    isEvalSupported: false,
    // Annotation appearances and XFA are read through getAnnotations, never executed.
    enableXfa: false,
    verbosity: 0,
  });
  let destroyed = false;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    await task.destroy().catch(() => undefined);
  };
  try {
    return { pdfjs: lib, doc: await task.promise, destroy };
  } catch (error) {
    await destroy();
    throw openError(error);
  }
}

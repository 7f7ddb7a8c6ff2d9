/**
 * jest setupFiles: a passing test prints nothing beyond jest's own lines. Tests start services in
 * their own process (startScraperWorker, a gateway harness), whose JSON log and lifecycle lines go
 * straight to stdout, and the OCR tests feed tesseract a non-image on purpose, which makes
 * leptonica print `Error in pixReadStream: …` from its thread. Those lines are held back here;
 * GLEANER_TEST_LOGS=1 lets them through. Output of processes a test starts is not concerned: it
 * is captured by the test (tests/support/processes.ts) and shown when an expectation fails.
 */
const HELD = Symbol.for('gleaner.test.quiet-output');

/** A JSON line with a level and a message (winston's, announce()'s), or leptonica's `Error in <function>: …`. */
function heldBack(line: string): boolean {
  if (/^Error in \w+: /.test(line)) return true;
  if (!line.startsWith('{')) return false;
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    return typeof parsed.level === 'string' && typeof parsed.message === 'string';
  } catch {
    return false;
  }
}

function quieten(stream: NodeJS.WriteStream): void {
  const marked = stream as NodeJS.WriteStream & { [HELD]?: boolean };
  // Once per process: jest runs each test file's setup again in the same worker.
  if (marked[HELD]) return;
  marked[HELD] = true;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'string' && !Buffer.isBuffer(chunk)) return write(chunk, ...rest);
    const lines = chunk.toString().split('\n');
    const kept = lines.filter((line) => !heldBack(line));
    if (kept.length === lines.length) return write(chunk, ...rest);
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    const text = kept.join('\n');
    if (text.trim() === '') {
      callback?.();
      return true;
    }
    return write(text, ...rest);
  }) as typeof stream.write;
}

if (process.env.GLEANER_TEST_LOGS !== '1') {
  quieten(process.stdout);
  quieten(process.stderr);
}

import { loadAverage } from './host.js';

/** The test's printed output: steps as they happen, figures at the end. */
export class Report {
  private readonly started = Date.now();
  readonly figures: Array<[string, string]> = [];

  step(message: string): void {
    const s = ((Date.now() - this.started) / 1000).toFixed(0).padStart(4);
    console.log(`[${s} s] ${message}`);
  }

  /** A figure, printed now and again in the summary. */
  figure(name: string, value: string): void {
    this.figures.push([name, value]);
    this.step(`${name}: ${value}`);
  }

  /** Throws when `condition` is false, with `detail` (what was seen) in the message. */
  check(condition: boolean, message: string, detail?: unknown): void {
    if (!condition) throw new Error(`check failed: ${message}${detail === undefined ? '' : `: ${JSON.stringify(detail).slice(0, 600)}`}`);
    this.step(`ok: ${message}`);
  }

  summary(outcome: string): void {
    console.log('');
    console.log(`=== pnpm test:deploy: ${outcome} (load average now ${loadAverage()}) ===`);
    const width = Math.max(...this.figures.map(([n]) => n.length));
    for (const [name, value] of this.figures) console.log(`${name.padEnd(width)}  ${value}`);
  }
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

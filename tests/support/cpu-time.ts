/**
 * CPU time of this process (all its threads) in ms. Complexity checks in unit tests time with it:
 * unlike wall-clock time, it is not stretched when other processes load the machine.
 */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * CPU time of the calling thread alone in ms where Node can tell (process.threadCpuUsage: Node 24
 * has it, Node 20 not), else of the process. For checks of work done in the thread itself (pdf.js
 * and the PDF caps): the process's figure also counts its other threads (V8's garbage collection
 * and compile helpers among them), and on Node 24 one such check, 0.1-0.3 s of work when run
 * alone, read 4.5 s in CI on a machine loaded by other test files.
 */
export function threadCpuMs(): number {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.() ?? process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Thread CPU time of `work` on a small and on a large input, each the best of `runs`, the runs
 * interleaved and after a warm-up on the small one. For complexity checks as a ratio of the two:
 * a slow or loaded machine moves both alike, where it would push a single timing past a fixed limit.
 */
export function bestCpuMsOf<T>(work: (input: T) => unknown, small: T, large: T, runs: number): { small: number; large: number } {
  const time = (input: T) => {
    const started = threadCpuMs();
    work(input);
    return threadCpuMs() - started;
  };
  time(small);
  const best = { small: Infinity, large: Infinity };
  for (let run = 0; run < runs; run++) {
    best.small = Math.min(best.small, time(small));
    best.large = Math.min(best.large, time(large));
  }
  return best;
}

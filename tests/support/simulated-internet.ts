import path from 'node:path';
import { REPO_ROOT, RUN_PROGRAM, startProcess, type ServiceProcess } from './processes.js';

/** The `--import` module that gives a child process the simulated internet (see its header). */
export const SIMULATED_INTERNET_PRELOAD = path.join(REPO_ROOT, 'tests/support/simulated-internet-preload.mjs');

export interface SimulatedInternet {
  /** Made-up host name → the addresses DNS answers for it in this process (`*`: every other name). */
  hosts: Record<string, string[]>;
  /** Public address → local address its connections actually reach (same port). */
  nat?: Record<string, string>;
}

/** Environment that hands a process its view of the simulated internet. */
export function simulatedInternetEnv(net: SimulatedInternet): Record<string, string> {
  return { GLEANER_TEST_SIMULATED_INTERNET: JSON.stringify({ hosts: net.hosts, nat: net.nat ?? {} }) };
}

/** A service process (`services/<name>/src/main.ts`) that resolves and connects through `net`. */
export function startServiceOnSimulatedInternet(name: string, env: Record<string, string>, net: SimulatedInternet): ServiceProcess {
  return startProcess(process.execPath, ['--import', SIMULATED_INTERNET_PRELOAD, RUN_PROGRAM, `services/${name}/src/main.ts`], { ...env, ...simulatedInternetEnv(net) });
}

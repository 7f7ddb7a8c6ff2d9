import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@jest/globals';
import { REPO_ROOT } from './processes.js';

/**
 * Where tests put the figures they measure (timings, memory, corpus scores): appended to
 * `.gleaner/test-figures.log` in the checkout (git-ignored), each line with its time and test
 * file, so a passing run prints nothing beyond jest's own lines. GLEANER_TEST_LOGS=1 prints them too.
 */
export const FIGURES_FILE = path.join(REPO_ROOT, '.gleaner', 'test-figures.log');

export function reportFigures(text: string): void {
  const testFile = path.basename(expect.getState().testPath ?? 'unknown');
  const trimmed = text.replace(/\n+$/, '');
  const stamp = new Date().toISOString();
  mkdirSync(path.dirname(FIGURES_FILE), { recursive: true });
  appendFileSync(FIGURES_FILE, `${trimmed.split('\n').map((line) => `${stamp} ${testFile}: ${line}`).join('\n')}\n`);
  if (process.env.GLEANER_TEST_LOGS === '1') process.stdout.write(`${trimmed}\n`);
}

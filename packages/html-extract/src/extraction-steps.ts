import { ExtractionTimeoutError, type StepFailure } from './types.js';

/**
 * Runs the steps of an extraction so that a step that throws on some page never fails the page:
 * the step is skipped, its fallback (the candidate the steps before it made) is kept, and the
 * failure is recorded for the caller to log. Only a spent time budget goes on up: that is the
 * caller's limit, not a fault of the page.
 */
export class ExtractionSteps {
  readonly failures: StepFailure[] = [];

  run<T>(step: string, work: () => T, fallback: () => T): T {
    try {
      return work();
    } catch (err) {
      if (err instanceof ExtractionTimeoutError) throw err;
      this.failures.push({ step, error: err instanceof Error ? err.message : String(err) });
      return fallback();
    }
  }
}

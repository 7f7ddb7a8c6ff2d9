import { TaskTimeoutError } from '@gleaner/platform';

/** A parse stopped at the time its pages read so far allow. */
export class PageBudgetExceededError extends TaskTimeoutError {
  constructor(
    budgetMs: number,
    readonly pagesRead: number,
    readonly perPageMs: number,
  ) {
    super(budgetMs);
    this.name = 'PageBudgetExceededError';
  }
}

/**
 * The time a parse may take grows with the pages it has really read: `perPageMs` for each page
 * read and one more (the page being read), at most `capMs` (PARSER_JOB_BUDGET_MS), counted from
 * the start. What a document claims (a PDF's page count) never extends it (issue 24): a one-page
 * document that spins frees its slot after one page's time, not the whole job's. `signal` aborts
 * with a PageBudgetExceededError when the time allowed runs out.
 */
export class PageBudget {
  private readonly controller = new AbortController();
  private readonly started = Date.now();
  private pagesRead = 0;
  private timer: NodeJS.Timeout;

  constructor(
    private readonly perPageMs: number,
    private readonly capMs: number,
  ) {
    this.timer = this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The time allowed with `pages` pages read. */
  allowedMs(pages = this.pagesRead): number {
    return Math.min(this.capMs, this.perPageMs * (pages + 1));
  }

  /** A progress report: `pagesDone` pages of the document have been read. */
  pagesDone(pagesDone: number): void {
    if (pagesDone <= this.pagesRead || this.controller.signal.aborted) return;
    this.pagesRead = pagesDone;
    clearTimeout(this.timer);
    this.timer = this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): NodeJS.Timeout {
    const allowed = this.allowedMs();
    const timer = setTimeout(() => this.controller.abort(new PageBudgetExceededError(allowed, this.pagesRead, this.perPageMs)), Math.max(0, this.started + allowed - Date.now()));
    timer.unref();
    return timer;
  }
}

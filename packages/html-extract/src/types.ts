export interface PageLink {
  text: string;
  url: string;
  type: 'internal' | 'external' | 'mailto' | 'tel';
}

export interface PageImage {
  url: string;
  alt: string;
}

export interface PageMeta {
  title: string;
  description: string;
  language?: string;
  canonical_url?: string;
  site_name?: string;
  author?: string;
  published_time?: string;
  modified_time?: string;
  keywords?: string[];
  favicon?: string;
  og_image?: string;
  og?: Record<string, string>;
  twitter?: Record<string, string>;
  json_ld?: unknown[];
  [key: string]: unknown;
}

export interface PageExtraction {
  title: string;
  text: string;
  markdown?: string;
  meta: PageMeta;
  links: PageLink[];
  images: PageImage[];
  /** How the main content was found: Readability, or the whole-page fallback. */
  contentSource: 'region' | 'readability' | 'fallback';
  /**
   * Steps that threw on this page and were skipped, the candidate before them kept (for the
   * caller's log; absent when every step ran).
   */
  stepFailures?: StepFailure[];
}

/** A step of the extraction that threw, by name, and its error's message. */
export interface StepFailure {
  step: string;
  error: string;
}

export interface ExtractOptions {
  markdown: boolean;
  /** Checked between phases; the caller's thread budget is the hard stop. */
  timeBudgetMs?: number;
}

export class ExtractionTimeoutError extends Error {
  constructor(
    readonly budgetMs: number,
    /** The phase that ended past the budget. */
    readonly phase: string,
  ) {
    super(`page extraction exceeded its ${budgetMs} ms budget (after ${phase})`);
    this.name = 'ExtractionTimeoutError';
  }
}

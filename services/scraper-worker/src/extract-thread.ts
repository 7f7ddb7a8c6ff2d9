// The thread-pool module alone: the package's index would load Redis, logging and metrics
// clients into every thread (~16 MB each, unused here).
import { serveThreadTasks } from '@gleaner/platform/threads';
import { extractPage } from '@gleaner/html-extract';
import { selectElements } from './select-elements.js';

/** Tasks run inside the extraction threads (jsdom parsing is synchronous and CPU bound). */
export type ExtractTask =
  | { task: 'page'; html: string; url: string; markdown: boolean; budgetMs: number }
  | { task: 'select'; html: string; url: string; selector?: string };

serveThreadTasks(async (input: ExtractTask, reportProgress) => {
  if (input.task === 'page') return extractPage(input.html, input.url, { markdown: input.markdown, timeBudgetMs: input.budgetMs });
  return selectElements(input.html, input.url, input.selector, reportProgress);
});

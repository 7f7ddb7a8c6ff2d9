import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { REPO_ROOT } from './processes.js';

export const WEB_CORPUS = path.resolve(REPO_ROOT, '../shared/corpus/web');
/** Readability's fixtures resolve every page against this address (corpus README). */
export const CORPUS_PAGE_URL = 'http://fakehost/test/page.html';

export interface CorpusPage {
  folder: string;
  source: string;
  expectedHtml: string;
  expectedMeta: { title: string; byline: string | null; excerpt: string | null };
}

export function realSitePages(): CorpusPage[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(WEB_CORPUS, 'MANIFEST.json'), 'utf8')) as { pages: Array<{ folder: string; kind: string }> };
  return manifest.pages
    .filter((p) => p.kind === 'real-site-capture')
    .map((p) => {
      const dir = path.join(WEB_CORPUS, p.folder);
      return {
        folder: p.folder,
        source: fs.readFileSync(path.join(dir, 'source.html'), 'utf8'),
        expectedHtml: fs.readFileSync(path.join(dir, 'expected.html'), 'utf8'),
        expectedMeta: JSON.parse(fs.readFileSync(path.join(dir, 'expected-metadata.json'), 'utf8')),
      };
    });
}

/** Text of an HTML fragment (for F1 against expected.html): its DOM text content, entities decoded. */
export function htmlToText(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return (document.body.textContent ?? '').replace(/\s+/g, ' ').trim();
}

import { htmlToText } from './web-corpus.js';

/**
 * Hygiene checks of an extraction result (from extractPage or from the API), shared by the
 * package's corpus test and the API's, so both hold the same bars. Each returns the problems it
 * found (empty when none), so a failure names the page and the offending value.
 */

const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/** Script and style bodies of a page long enough to be recognisable (JSON-LD is metadata, not script). */
export function scriptAndStyleTexts(html: string): string[] {
  return [...html.matchAll(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1\s*>/gi)]
    .filter((m) => !/ld\+json/i.test(m[2]))
    .map((m) => norm(m[3]))
    .filter((t) => t.length > 40);
}

/**
 * Script or style text found in the text or markdown: the start, the middle and the end of every
 * script and style body of `source` are probed (a leak can start anywhere). Link and image
 * addresses in the markdown are not text (a script may well mention the same URL), and a probe
 * that is also visible page text is no leak (scripts often carry the article as JSON state).
 */
export function scriptOrStyleLeaks(source: string, output: { text: string; markdown?: string }): string[] {
  const text = norm(output.text);
  const markdown = norm(output.markdown?.replace(/\]\([^)]*\)/g, ']()'));
  let visible: string | undefined;
  const isVisible = (probe: string) => (visible ??= norm(htmlToText(source.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')))).includes(probe);
  const leaks: string[] = [];
  for (const code of scriptAndStyleTexts(source)) {
    const middle = Math.floor(code.length / 2);
    for (const probe of [code.slice(0, 40), code.slice(middle, middle + 40), code.slice(-40)]) {
      if ((text.includes(probe) || markdown.includes(probe)) && !isVisible(probe)) leaks.push(probe);
    }
  }
  return leaks;
}

const LINK_URL: Record<string, RegExp> = {
  internal: /^https?:\/\/[^/]/,
  external: /^https?:\/\/[^/]/,
  mailto: /^mailto:/i,
  tel: /^tel:/i,
};

/** Links typed internal, external, mailto or tel, with a URL of that kind and text; images with an absolute URL and alt text. */
export function linkAndImageProblems(links: unknown[], images: unknown[]): string[] {
  const problems: string[] = [];
  for (const link of links as Array<Record<string, unknown>>) {
    const pattern = typeof link.type === 'string' ? LINK_URL[link.type] : undefined;
    if (!pattern) problems.push(`link of unknown type: ${JSON.stringify(link)}`);
    else if (typeof link.url !== 'string' || !pattern.test(link.url)) problems.push(`link URL not absolute for its type: ${JSON.stringify(link)}`);
    if (typeof link.text !== 'string') problems.push(`link text not a string: ${JSON.stringify(link)}`);
  }
  for (const image of images as Array<Record<string, unknown>>) {
    if (typeof image.url !== 'string' || !/^(https?:\/\/[^/]|data:image\/)/.test(image.url)) problems.push(`image URL not absolute: ${JSON.stringify(image)}`);
    if (typeof image.alt !== 'string') problems.push(`image alt not a string: ${JSON.stringify(image)}`);
  }
  return problems;
}

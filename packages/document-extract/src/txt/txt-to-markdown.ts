/**
 * SPEC "txt with output markdown":
 *  - a line ending in a colon becomes an H3 header (any line, as written);
 *  - a short line (under 50 characters) at the start of a paragraph becomes an H2 header;
 *  - empty lines make paragraph breaks; form feeds make page breaks (pages are split by the caller).
 *
 * Both rules are applied as the SPEC words them, with no exceptions of our own: a short opening
 * sentence ("Thank you.") or a salutation ("Dear Anna,") becomes an H2 too. The colon rule takes
 * precedence: a short first line ending in ":" is H3. Lengths are counted on the trimmed line.
 * Other lines are kept as they are (trailing spaces removed): preformatted text stays readable.
 */
const SHORT_LINE = 50;

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
    if (title.endsWith(':')) {
      out.push(`### ${title}`);
    } else if (paragraphStart && title.length < SHORT_LINE) {
      out.push(`## ${title}`);
    } else {
      out.push(line);
    }
    paragraphStart = false;
  }
  return out.join('\n');
}

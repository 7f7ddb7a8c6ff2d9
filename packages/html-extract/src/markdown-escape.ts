/**
 * Escaping for text that must read as itself in CommonMark/GFM. Every function here looks only at
 * the string it is given (one text node, one line, one URL), never at the markdown written so
 * far, which keeps rendering linear in the page size.
 */

/** Characters that may open or close inline markup wherever they stand. */
const INLINE_SPECIAL = /[\\`*[\]~_<&]/g;
/** The same characters, for the test that spares most text the (slower) replace with a callback. */
const HAS_INLINE_SPECIAL = /[\\`*[\]~_<&]/;
const WORD_CHAR = /[\p{L}\p{N}]/u;
/** `<` starting what a markdown reader would take for an HTML tag, comment or autolink. */
const TAG_START = /[A-Za-z/!?]/;
/** `&` starting what a markdown reader would decode as a character reference. */
const ENTITY = /^&#?[A-Za-z0-9]+;/;

export const isWordChar = (char: string | undefined): boolean => char !== undefined && WORD_CHAR.test(char);

/**
 * Text as markdown: backslash before what would otherwise become markup. `_` between two letters
 * stays bare (CommonMark never reads intraword `_` as emphasis, and `snake_case` reads better);
 * `<` and `&` only where they would start a tag or a character reference.
 */
export function escapeText(text: string): string {
  if (!HAS_INLINE_SPECIAL.test(text)) return text;
  return text.replace(INLINE_SPECIAL, (char: string, at: number) => {
    if (char === '_' && isWordChar(text[at - 1]) && isWordChar(text[at + 1])) return char;
    if (char === '<' && !TAG_START.test(text[at + 1] ?? '')) return char;
    if (char === '&' && !ENTITY.test(text.slice(at, at + 34))) return char;
    return ESCAPED[char];
  });
}

/** The escaped forms, made once: pages escape thousands of characters. */
const ESCAPED: Record<string, string> = Object.fromEntries([...'\\`*[]~_<&'].map((char) => [char, `\\${char}`]));

/** Line starts that would turn a paragraph line into a heading, quote, list item, rule or setext underline. */
const BLOCK_START = /^(?:#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$)|-{2,}[ \t]*$|=+[ \t]*$)/;
const ORDERED_START = /^\d{1,9}(?=[.)](?:[ \t]|$))/;

/** A paragraph line with its first characters escaped where they would start a block. */
export function escapeLineStart(line: string): string {
  const first = line.charCodeAt(0);
  if (first >= 48 && first <= 57) return line.replace(ORDERED_START, '$&\\');
  if (first === 35 /* # */ || first === 62 /* > */ || first === 45 /* - */ || first === 43 /* + */ || first === 61 /* = */) {
    return line.replace(BLOCK_START, '\\$&');
  }
  return line;
}

/** Heading text whose trailing `#` run would be read as the optional closing sequence. */
export function escapeHeadingEnd(text: string): string {
  // A scan, not /(^|\s)#+$/: a regex would retry every position of a long run of `#`.
  let start = text.length;
  while (start > 0 && text[start - 1] === '#') start--;
  if (start === text.length || (start > 0 && text[start - 1] !== ' ' && text[start - 1] !== '\t')) return text;
  return `${text.slice(0, start)}\\${text.slice(start)}`;
}

/** Length of the longest run of `char` in `text`. */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  for (let at = text.indexOf(char); at !== -1; ) {
    let end = at + 1;
    while (text[end] === char) end++;
    if (end - at > longest) longest = end - at;
    at = text.indexOf(char, end);
  }
  return longest;
}

/**
 * An inline code span: the fence is one backtick longer than any run inside, and a space pads
 * content that starts or ends with a backtick (CommonMark strips exactly one such space).
 */
export function codeSpan(code: string): string {
  const fence = '`'.repeat(longestRun(code, '`') + 1);
  const pad = code.startsWith('`') || code.endsWith('`') || (code.startsWith(' ') && code.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${code}${pad}${fence}`;
}

/** A fence for a code block: at least three backticks, and longer than any run in the code. */
export const codeFence = (code: string): string => {
  const length = longestRun(code, '`') + 1;
  return length <= 3 ? '```' : '`'.repeat(length);
};

/** True when every parenthesis in `url` is part of a balanced pair (CommonMark then allows them bare). */
function parenthesesBalanced(url: string): boolean {
  let depth = 0;
  for (let i = 0; i < url.length; i++) {
    const char = url[i];
    if (char === '(') depth++;
    else if (char === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * A URL as a link destination: whitespace and angle brackets percent-encoded (URLs resolved by
 * `new URL` never have them, raw fragments may), parentheses encoded only when unbalanced, so
 * Wikipedia's `Foo_(bar)` stays readable.
 */
export function linkDestination(url: string): string {
  let destination = /[\s<>]/.test(url) ? url.replace(/[\s<>]/g, (char) => encodeURIComponent(char)) : url;
  if ((destination.includes('(') || destination.includes(')')) && !parenthesesBalanced(destination)) {
    destination = destination.replace(/\(/g, '%28').replace(/\)/g, '%29');
  }
  return destination;
}

/** ` "title"` for a link or image, or nothing when there is no title. */
export function linkTitle(title: string | null): string {
  // Only runs of whitespace and other whitespace than spaces are replaced: most titles have neither.
  const text = title?.replace(/\s{2,}|[^\S ]/g, ' ').trim();
  return text ? ` "${text.replace(/["\\]/g, '\\$&')}"` : '';
}

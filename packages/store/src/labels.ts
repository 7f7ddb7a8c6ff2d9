/** The longest label-like text an account may give: API-key and LLM-key labels, LLM model names. */
export const LABEL_MAX_CHARS = 100;

/**
 * C0 controls, DEL and C1 controls (`\p{Cc}`: U+0000-U+001F, U+007F-U+009F; NUL and ESC among
 * them) and lone surrogates (in a `u` regex `[\ud800-\udfff]` matches only an unpaired one).
 * Such text is shown back in listings, the console and terminals, where a C1 CSI (U+009B) or an
 * ESC sequence is a terminal command, and a lone surrogate cannot be encoded as UTF-8 at all.
 */
const UNSHOWABLE = /[\p{Cc}\ud800-\udfff]/u;

/**
 * The one check of label-like text a tenant gives and we show back (API-key labels, LLM-key
 * labels and models, uploaded file names): what is wrong with `value` (already trimmed by the
 * caller), or null. Length counts characters (code points), not UTF-16 units.
 */
export function labelProblem(name: string, value: string, maxChars = LABEL_MAX_CHARS): string | null {
  let chars = 0;
  for (const _ of value) if (++chars > maxChars) break;
  if (chars <= maxChars && !UNSHOWABLE.test(value)) return null;
  return `${name} must be at most ${maxChars} characters, without control characters (U+0000-U+001F, U+007F-U+009F) or unpaired surrogates`;
}

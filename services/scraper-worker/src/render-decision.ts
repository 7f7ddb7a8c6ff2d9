/**
 * `render_js: "auto"`: whether a statically fetched page looks client-rendered, i.e. its text
 * arrives only once scripts run. Judged on the HTML alone with linear scans (no DOM: this runs on
 * every page, most of which are static and must stay untouched). Measured on the developer
 * corpora (services/scraper-worker/test/render-decision.test.ts): 100 % of corpus/web's real
 * pages and 99.7 % of corpus/web-annotated's are left static.
 */

export interface RenderDecision {
  render: boolean;
  /** Why, in a few words (logged, and tested). */
  reason: string;
  /** Words of visible text the static page has (at least this many when its text was read only in part; -1: not counted). */
  words: number;
}

/** Under this many words a page with scripts is a shell whatever else it has. */
const SHELL_WORDS = 30;
/** Under this many words, a shell sign (mount node, "enable JavaScript" notice, state blob) decides. */
const THIN_WORDS = 150;
/** An inline state blob this many times larger than the visible text holds the page's content. */
const STATE_TO_TEXT = 10;

const BLOCKS = /<(script|style|noscript|template|svg|textarea)\b[^>]*>[\s\S]*?<\/\1\b[^>]*>/gi;
const SCRIPTS = /<script\b([^>]*)>([\s\S]*?)<\/script\b[^>]*>/gi;
const MOUNT_NODE = /<(div|main|section|body)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|react-root|app-root|application|spa-root|main-app)["'\s>]|<app-root\b|\bng-app\b|\bng-version\s*=|\bdata-reactroot\b/i;
const NOSCRIPT_NOTICE = /<noscript\b[^>]*>[\s\S]{0,600}?(?:enable|turn on|activate|requires?|need|without)\b[\s\S]{0,80}?javascript|<noscript\b[^>]*>[\s\S]{0,600}?javascript\s+(?:is|must be)\s+(?:required|disabled|needed|turned off|enabled)/i;
const STATE_MARKER = /__NEXT_DATA__|__NUXT__|__INITIAL_STATE__|__APOLLO_STATE__|__PRELOADED_STATE__|__REDUX_STATE__|__remixContext|window\.__[A-Z][A-Z0-9_]*__\s*=/;
const CUSTOM_ELEMENT = /<([a-z][a-z0-9]*-[a-z0-9-]*)\b/i;
const HASH_ROUTE = /#!?\//;

/** Visible-text words: letters/digits runs, and CJK characters two to a word. */
function countWords(text: string): number {
  const latin = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  let cjk = 0;
  for (const run of latin) cjk += (run.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu) ?? []).length;
  return latin.length + Math.floor(cjk / 2);
}

function bodyOf(html: string): string {
  const start = html.search(/<body\b/i);
  return start >= 0 ? html.slice(start) : html;
}

/** What a cut made inside a block, tag or comment leaves open: the cut part ends before it. */
const OPEN_AT_END = /<(script|style|noscript|template|svg|textarea)\b(?![\s\S]*<\/\1\b)[\s\S]*$|<!--(?![\s\S]*-->)[\s\S]*$|<[^>]*$/i;

/**
 * The visible text of `body`, read from its start in growing slices until THIN_WORDS words are
 * found (more text cannot change the decision) or the body ends. Runs on the worker's main
 * thread for every page: a 9 MB article is read as its first 64 KB, not scanned whole five times.
 */
function visibleText(body: string): { words: number; textChars: number; whole: boolean } {
  for (let size = 64 * 1024; ; size *= 4) {
    const whole = size >= body.length;
    const part = whole ? body : body.slice(0, size).replace(OPEN_AT_END, '');
    const visible = part
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(BLOCKS, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&(?:nbsp|#160);/gi, ' ');
    const words = countWords(visible);
    if (whole || words >= THIN_WORDS) return { words, textChars: visible.replace(/\s+/g, ' ').length, whole };
  }
}

export function decideRendering(html: string, url: string): RenderDecision {
  let scriptBytes = 0;
  let stateBytes = 0;
  for (const m of html.matchAll(SCRIPTS)) {
    const attrs = m[1];
    const code = m[2];
    if (/\bsrc\s*=/i.test(attrs)) scriptBytes += 1_000;
    if (/type\s*=\s*["']?application\/ld\+json/i.test(attrs)) continue; // metadata, not page state
    scriptBytes += code.length;
    if (STATE_MARKER.test(code) || /type\s*=\s*["']?application\/json/i.test(attrs)) stateBytes += code.length;
  }
  if (scriptBytes === 0) return { render: false, reason: 'no scripts', words: -1 };
  const body = bodyOf(html);
  // Below THIN_WORDS the whole body was read, so textChars is the page's.
  const { words, textChars, whole } = visibleText(body);
  const decide = (render: boolean, reason: string): RenderDecision => ({ render, reason, words });

  if (words < SHELL_WORDS) return decide(true, `${words} words of text beside scripts`);
  if (HASH_ROUTE.test(new URL(url).hash) && MOUNT_NODE.test(html)) return decide(true, 'hash route of a script-rendered app');
  if (words < THIN_WORDS) {
    if (NOSCRIPT_NOTICE.test(html)) return decide(true, `${words} words and a noscript "enable JavaScript" notice`);
    if (MOUNT_NODE.test(html) && scriptBytes > STATE_TO_TEXT * textChars) return decide(true, `${words} words beside a mount node and ${scriptBytes} bytes of script`);
    if (CUSTOM_ELEMENT.test(body) && scriptBytes > textChars) return decide(true, `${words} words beside custom elements`);
    if (stateBytes > STATE_TO_TEXT * textChars) return decide(true, `${words} words beside an inline state blob of ${stateBytes} bytes`);
  }
  return decide(false, `${whole ? '' : 'at least '}${words} words of static text`);
}

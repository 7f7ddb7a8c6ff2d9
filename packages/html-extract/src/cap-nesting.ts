import { Tokenizer } from 'htmlparser2';

/**
 * Deepest element nesting kept as elements (`<html>` is depth 1). Real pages stay far below (the
 * corpus's deepest is 38), and browsers cap it too (Blink's parser at 512). Past it, pathological
 * pages are quadratic everywhere: htmlparser2 keeps its open elements in an array it unshifts
 * (linkedom's parse of 80,000 nested <div> took 3.8 s), Readability's cost grows with the square
 * of the depth, and recursive walkers overflow the stack near 10,000.
 */
export const MAX_DEPTH = 128;

/** Mirrors of htmlparser2's Parser tables (dist/esm/Parser.js, 10.1.0), which it does not export. */
const P = new Set(['p']);
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const TABLE_SECTIONS = new Set(['thead', 'tbody']);
const DD_DT = new Set(['dd', 'dt']);
const RT_RP = new Set(['rt', 'rp']);
const OPEN_IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((name): [string, Set<string>] => [name, P]),
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((name): [string, Set<string>] => [name, FORM]),
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DD_DT],
  ['dt', DD_DT],
  ...['address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map(
    (name): [string, Set<string>] => [name, P],
  ),
  ['rt', RT_RP],
  ['rp', RT_RP],
  ['tbody', TABLE_SECTIONS],
  ['tfoot', TABLE_SECTIONS],
]);
const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const FOREIGN_CONTEXT = new Set(['math', 'svg']);
const HTML_INTEGRATION = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title']);
/**
 * Elements whose content the tokenizer reads as text. Dropped past the cap with their content:
 * without their tags, that text would be read as markup by the real parse.
 */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp']);
/**
 * Elements that put a marker on HTML's list of active formatting elements: an `<a>` inside one of
 * them does not close an `<a>` opened outside it.
 */
const FORMATTING_MARKERS = ['td', 'th', 'caption', 'applet', 'object', 'marquee', 'template'];
/** Dropped tags of these leave nothing (they sit inside words); other dropped tags leave a line break. */
const PHRASING = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'mark', 'nobr', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var']);

/**
 * Open elements as htmlparser2's Parser keeps them, with push and pop at the top (O(1)) and a
 * count per name, so that a close tag whose element is not open costs O(1) instead of a scan.
 */
class OpenElements {
  private readonly names: string[] = [];
  private readonly counts = new Map<string, number>();

  get length(): number {
    return this.names.length;
  }

  get top(): string | undefined {
    return this.names[this.names.length - 1];
  }

  /** The name `below` places under the top (0 is the top). */
  peek(below: number): string | undefined {
    return this.names[this.names.length - 1 - below];
  }

  push(name: string): void {
    this.names.push(name);
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  pop(): void {
    const name = this.names.pop();
    if (name !== undefined) this.counts.set(name, this.counts.get(name)! - 1);
  }

  /** Index of the topmost open `name`, or -1. */
  indexOf(name: string): number {
    return this.counts.get(name) ? this.names.lastIndexOf(name) : -1;
  }

  /** Pops down to `index`, inclusive. */
  popTo(index: number): void {
    while (this.names.length > Math.max(index, 0)) this.pop();
  }
}

/**
 * The markup with some spans removed (and a few close tags added), built as they are found (in
 * document order). A dropped
 * phrasing tag leaves nothing (it sits inside words), any other a line break; a run of dropped
 * tags with only whitespace between leaves one line break, so 400,000 of them do not become
 * 400,000 lines that every later step walks again.
 */
class SpanDropper {
  private readonly parts: string[] = [];
  private copiedTo = 0;
  private brokeLine = false;

  constructor(private readonly html: string) {}

  drop(start: number, end: number, name: string): void {
    const between = this.html.slice(this.copiedTo, start);
    const onlySpace = !/\S/.test(between);
    if (between) this.parts.push(between);
    if (!PHRASING.has(name) && !(this.brokeLine && onlySpace)) {
      this.parts.push('\n');
      this.brokeLine = true;
    } else {
      // Text must not join across the span into markup: `<` + `div>` would be a tag, `&am` + `p;`
      // an entity.
      if (/(?:<|&[#\w]*)$/.test(between)) this.parts.push(' ');
      this.brokeLine &&= onlySpace;
    }
    this.copiedTo = end;
  }

  /** Adds `text` at `at` (not before what was already copied or dropped). */
  insert(at: number, text: string): void {
    this.parts.push(this.html.slice(this.copiedTo, at), text);
    this.copiedTo = at;
    this.brokeLine = false;
  }

  result(): string {
    if (this.copiedTo === 0 && this.parts.length === 0) return this.html;
    this.parts.push(this.html.slice(this.copiedTo));
    return this.parts.join('');
  }
}

/**
 * Drops the tags of elements nested deeper than `maxDepth`, keeping their text, so that the
 * parse and everything after it see a tree of bounded depth. Done on the markup because the
 * parse itself is what deep nesting makes quadratic. Linear in the input.
 *
 * The markup is read with htmlparser2's own tokenizer, and the open elements of the parse that
 * will read the result are followed with its Parser's rules (implied end tags, void elements,
 * `/>` in foreign content, a close tag closing every element above its own), fed only with the
 * tags that are kept: so the depth counted is the depth that parse builds. Tags past the cap are
 * tracked apart, only to drop their own close tags; once the cap is reached, every open tag is
 * dropped until a kept close tag brings the depth down.
 */
export function capNesting(html: string, maxDepth = MAX_DEPTH): string {
  const kept = new OpenElements();
  const keptForeignContext: boolean[] = [false];
  const dropped = new OpenElements();
  const output = new SpanDropper(html);
  // The open tag being read: its name, where its `<` is, whether it stays, whether its `>` came.
  let tagName = '';
  let tagStart = 0;
  let keepTag = true;
  let tagPending = false;
  // A raw-text element past the cap: dropped from its `<` to the end of its close tag.
  let rawTextStart = -1;

  /** How many kept elements a new `name` closes implicitly, as the Parser does on opening it. */
  const impliedCloses = (name: string): number => {
    const closes = OPEN_IMPLIES_CLOSE.get(name);
    let count = 0;
    if (closes) while (count < kept.length && closes.has(kept.peek(count)!)) count++;
    return count;
  };
  /**
   * An `<a>` start tag while an `<a>` is open closes that one first: what HTML's parser does (the
   * adoption agency, run for an `a` on the list of active formatting elements), which
   * htmlparser2 does not. Without it, 300 unclosed `<a>` nest 300 deep: each link's text swallows
   * every later one's, and past the cap their tags are dropped (issue 24: 125 links of 300).
   * Written into the markup as `</a>`, so every parse that reads it (linkedom, and jsdom for v1
   * selectors) sees one anchor per `<a>`.
   */
  const closeOpenAnchor = (at: number): void => {
    const anchor = kept.indexOf('a');
    if (anchor === -1 || FORMATTING_MARKERS.some((marker) => kept.indexOf(marker) > anchor)) return;
    output.insert(at, '</a>');
    kept.popTo(anchor);
  };
  const endOpenTag = (endIndex: number): void => {
    if (!keepTag) output.drop(tagStart, endIndex + 1, tagName);
    keepTag = true;
    tagPending = false;
  };

  const tokenizer = new Tokenizer(
    { xmlMode: false, decodeEntities: true },
    {
      onopentagname(start, endIndex) {
        const name = html.slice(start, endIndex).toLowerCase();
        tagName = name;
        tagStart = start - 1;
        tagPending = true;
        if (name === 'a' && dropped.length === 0) closeOpenAnchor(tagStart);
        const droppedCloses = OPEN_IMPLIES_CLOSE.get(name);
        if (droppedCloses) while (dropped.length > 0 && droppedCloses.has(dropped.top!)) dropped.pop();
        const closes = dropped.length === 0 ? impliedCloses(name) : 0;
        keepTag = dropped.length === 0 && kept.length - closes < maxDepth;
        if (!keepTag) {
          if (RAW_TEXT.has(name)) rawTextStart = tagStart;
          else if (!VOID.has(name)) dropped.push(name);
          return;
        }
        for (let i = 0; i < closes; i++) kept.pop();
        if (VOID.has(name)) return;
        kept.push(name);
        if (FOREIGN_CONTEXT.has(name)) keptForeignContext.push(true);
        else if (HTML_INTEGRATION.has(name)) keptForeignContext.push(false);
      },
      onopentagend(endIndex) {
        // The content of a dropped raw-text element goes with it, up to its close tag.
        if (rawTextStart !== -1) tagPending = false;
        else endOpenTag(endIndex);
      },
      onselfclosingtag(endIndex) {
        if (rawTextStart !== -1) {
          tagPending = false;
          return;
        }
        // In foreign content `/>` closes the element; in HTML it is ignored.
        if (keepTag && keptForeignContext[keptForeignContext.length - 1] && kept.top === tagName) kept.pop();
        endOpenTag(endIndex);
      },
      onclosetag(start, endIndex) {
        const name = html.slice(start, endIndex).toLowerCase();
        const gt = html.indexOf('>', endIndex);
        const end = gt === -1 ? html.length : gt + 1;
        if (rawTextStart !== -1) {
          output.drop(rawTextStart, end, name);
          rawTextStart = -1;
          return;
        }
        const droppedIndex = dropped.indexOf(name);
        if (droppedIndex !== -1) {
          dropped.popTo(droppedIndex);
          output.drop(html.lastIndexOf('<', start), end, name);
          return;
        }
        // Kept: the parse sees this close tag.
        if (FOREIGN_CONTEXT.has(name) || HTML_INTEGRATION.has(name)) keptForeignContext.pop();
        if (VOID.has(name)) return;
        const index = kept.indexOf(name);
        if (index === -1) return;
        kept.popTo(index);
        dropped.popTo(0);
      },
      onend() {
        if (rawTextStart !== -1) output.drop(rawTextStart, html.length, 'script');
        else if (tagPending && !keepTag) output.drop(tagStart, html.length, tagName);
      },
      onattribdata() {},
      onattribentity() {},
      onattribend() {},
      onattribname() {},
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      ontext() {},
      ontextentity() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return output.result();
}

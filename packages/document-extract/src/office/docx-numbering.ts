import { HTMLElement, TextNode } from 'node-html-parser';
import { escapeHtml } from '../markup/xml-stream.js';
import { attribute, childElements } from './docx-xml.js';

/**
 * Word's computed numbers, which mammoth does not write: a numbered heading ("2.3 Scope") comes
 * out of mammoth as its text alone, and an item of a multi-level list ("2.3.1.") as the n-th item
 * of a nested ordered list, so the numbers a document refers to itself by ("see 2.3.1") are lost.
 * Counters are kept per numbering instance (w:num) and level, as LibreOffice and Docling keep them;
 * a level used before the levels above it shows their start values.
 */

/** Marks a computed list label in mammoth's HTML, so that its list can be told apart (see finishListLabels). */
const LABEL_OPEN = '\uE002';
const LABEL_CLOSE = '\uE003';
const MARKED_LABEL = new RegExp(`${LABEL_OPEN}([^${LABEL_CLOSE}]*)${LABEL_CLOSE}`, 'g');
/** Marks a one-level item's number, which finishListLabels gives its list item as `value`. */
const NUMBER_OPEN = '\uE004';
const NUMBER_CLOSE = '\uE005';
const MARKED_NUMBER = new RegExp(`${NUMBER_OPEN}(\\d*)${NUMBER_CLOSE}`, 'g');

interface Level {
  start: number;
  format: string;
  text: string;
  /** Counters of deeper levels restart when this level is used, unless they say otherwise (w:lvlRestart 0). */
  restartsAfterHigher: boolean;
  /** w:isLgl: the label's numbers are all shown in decimal (legal numbering). */
  legal: boolean;
}

export type ParagraphStyles = Map<string, Style>;

interface Style {
  paragraph: boolean;
  basedOn: string | null;
  name: string;
  numbering: { numId: string; level: number | null } | null;
}

interface Numbering {
  /** Levels by w:num id (its abstract definition with the instance's overrides applied). */
  levels: Map<string, Level[]>;
  /** Level of a numbering instance a paragraph style is bound to (w:lvl/w:pStyle), by style id. */
  levelOfStyle: Map<string, number>;
}

const child = (element: Element | undefined, name: string): Element | undefined => (element ? childElements(element).find((e) => e.localName === name) : undefined);
const value = (element: Element | undefined, name: string): string | null => {
  const found = child(element, name);
  return found ? attribute(found, 'val') : null;
};

function readLevel(lvl: Element): Level {
  const start = Number(value(lvl, 'start') ?? 1);
  return {
    start: Number.isFinite(start) ? start : 1,
    format: value(lvl, 'numFmt') ?? 'decimal',
    text: value(lvl, 'lvlText') ?? '',
    restartsAfterHigher: value(lvl, 'lvlRestart') !== '0',
    legal: child(lvl, 'isLgl') !== undefined && value(lvl, 'isLgl') !== '0',
  };
}

/** The paragraph and numbering styles of word/styles.xml, by style id. */
export function readStyles(styles: Element | null): ParagraphStyles {
  const out = new Map<string, Style>();
  if (!styles) return out;
  for (const style of childElements(styles)) {
    // Numbering styles too: a numbering definition may only link to one (w:numStyleLink).
    const type = attribute(style, 'type');
    if (style.localName !== 'style' || (type !== 'paragraph' && type !== 'numbering')) continue;
    const id = attribute(style, 'styleId');
    if (!id) continue;
    const numPr = child(child(style, 'pPr'), 'numPr');
    const level = value(numPr, 'ilvl');
    out.set(id, {
      paragraph: type === 'paragraph',
      basedOn: value(style, 'basedOn'),
      name: value(style, 'name') ?? id,
      numbering: numPr ? { numId: value(numPr, 'numId') ?? '0', level: level === null ? null : Number(level) } : null,
    });
  }
  return out;
}

function readNumbering(numbering: Element, styles: ParagraphStyles): Numbering {
  const levels = new Map<string, Level[]>();
  const levelOfStyle = new Map<string, number>();
  const abstracts = new Map<string, Element>();
  const instances: Element[] = [];
  for (const e of childElements(numbering)) {
    if (e.localName === 'abstractNum') abstracts.set(attribute(e, 'abstractNumId') ?? '', e);
    else if (e.localName === 'num') instances.push(e);
  }
  const abstractOf = new Map(instances.map((num) => [attribute(num, 'numId') ?? '', value(num, 'abstractNumId') ?? '']));
  for (const num of instances) {
    let abstract = abstracts.get(abstractOf.get(attribute(num, 'numId') ?? '') ?? '');
    // A definition that only links to a numbering style takes its levels from the instance that style names.
    const linked = value(abstract, 'numStyleLink');
    if (abstract && linked) {
      const numId = styles.get(linked)?.numbering?.numId;
      abstract = numId ? abstracts.get(abstractOf.get(numId) ?? '') : undefined;
    }
    if (!abstract) continue;
    const defined: Level[] = [];
    for (const lvl of childElements(abstract).filter((e) => e.localName === 'lvl')) {
      const index = Number(attribute(lvl, 'ilvl'));
      if (!(index >= 0 && index < 9)) continue;
      defined[index] = readLevel(lvl);
      const boundStyle = value(lvl, 'pStyle');
      if (boundStyle) levelOfStyle.set(boundStyle, index);
    }
    for (const override of childElements(num).filter((e) => e.localName === 'lvlOverride')) {
      const index = Number(attribute(override, 'ilvl'));
      if (!(index >= 0 && index < 9)) continue;
      const replaced = child(override, 'lvl');
      if (replaced) defined[index] = readLevel(replaced);
      const start = value(override, 'startOverride');
      if (start !== null && defined[index]) defined[index] = { ...defined[index], start: Number(start) || 0 };
    }
    levels.set(attribute(num, 'numId') ?? '', defined);
  }
  return { levels, levelOfStyle };
}

const ROMAN: Array<[number, string]> = [[1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'], [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i']];

function roman(n: number): string {
  let out = '';
  for (const [worth, digits] of ROMAN) for (; n >= worth; n -= worth) out += digits;
  return out;
}

/** Word's letters: a..z, then aa..zz, then aaa (the letter repeated), not a spreadsheet's column names. */
const letters = (n: number) => (n > 0 ? String.fromCharCode(97 + ((n - 1) % 26)).repeat(Math.floor((n - 1) / 26) + 1) : String(n));

/** A counter in a level's number format; formats without a rendering here are shown in decimal. */
export function formatNumber(n: number, format: string): string {
  switch (format) {
    case 'lowerRoman':
      return n > 0 && n < 4000 ? roman(n) : String(n);
    case 'upperRoman':
      return n > 0 && n < 4000 ? roman(n).toUpperCase() : String(n);
    case 'lowerLetter':
      return letters(n);
    case 'upperLetter':
      return letters(n).toUpperCase();
    case 'decimalZero':
      return n < 10 ? `0${n}` : String(n);
    case 'none':
      return '';
    default:
      return String(n);
  }
}

/** The paragraph's style and the styles up its w:basedOn chain (cycles cut), with their ids. */
function styleChain(styleId: string | null, styles: Map<string, Style>): Array<Style & { id: string }> {
  const chain: Array<Style & { id: string }> = [];
  const seen = new Set<string>();
  for (let id = styleId; id && !seen.has(id) && styles.has(id); id = styles.get(id)!.basedOn) {
    seen.add(id);
    chain.push({ ...styles.get(id)!, id });
  }
  return chain;
}

const HEADING_NAME = /^heading ([1-9])$/i;

/** The heading level of a style that is, or is based on, one of Word's built-in heading styles. */
function headingLevel(chain: Style[]): number | null {
  for (const style of chain) {
    const match = HEADING_NAME.exec(style.name);
    if (match) return Number(match[1]);
  }
  return null;
}

/**
 * Rules for mammoth's style map: paragraph styles based on a heading style without being one
 * (a "heading 2 unnumbered"), which mammoth would otherwise write as plain paragraphs or list items.
 */
export function headingStyleRules(styles: ParagraphStyles): string[] {
  const rules: string[] = [];
  for (const [id, style] of styles) {
    const level = headingLevel(styleChain(id, styles));
    if (style.paragraph && level !== null && level <= 6 && !HEADING_NAME.test(style.name) && !/['\\]/.test(style.name)) rules.push(`p[style-name='${style.name}'] => h${level}:fresh`);
  }
  return rules;
}

/** A paragraph's numbering and style, as its w:pPr gives them. */
interface ParagraphProperties {
  styleId: string | null;
  /** w:numPr, when the paragraph has one: its w:numId and w:ilvl, each null when absent. */
  numbering: { numId: string | null; level: string | null } | null;
}

/** How far a paragraph's w:pPr is looked for its end. */
const PROPERTIES_WINDOW = 4096;

/** Opening tags of w:p (not w:pPr, w:pStyle, ...) and of mc:Choice, and closing tags of mc:Choice. */
const PARAGRAPH_OR_CHOICE = /<(\/?)([\w.-]+:)?(p|Choice)(?=[\s>/])[^>]*?(\/?)>/g;
const attributeValue = (tag: string) => /(?:[\w.-]+:)?val\s*=\s*"([^"]*)"/.exec(tag)?.[1] ?? null;

/**
 * The w:pPr that opens at `at` (after white space), if any: where it ends, and what it says, read
 * without its w:pPrChange (a tracked change's former properties, with their own numbering).
 */
function paragraphProperties(xml: string, at: number, prefix: string): { end: number; properties: ParagraphProperties } | null {
  const start = xml.slice(at, at + 64).search(/\S/);
  const open = `<${prefix}pPr`;
  if (start < 0 || !xml.startsWith(open, at + start) || !/[\s>/]/.test(xml[at + start + open.length] ?? '')) return null;
  const tagEnd = xml.indexOf('>', at + start);
  if (tagEnd < 0) return null;
  if (xml[tagEnd - 1] === '/') return { end: tagEnd + 1, properties: { styleId: null, numbering: null } };
  // Searched within a window (paragraph properties are short), so that a body of unclosed w:pPr
  // is not scanned to its end once per paragraph.
  const window = xml.slice(tagEnd + 1, tagEnd + 1 + PROPERTIES_WINDOW);
  const close = `</${prefix}pPr>`;
  let body = '';
  let from = 0;
  for (;;) {
    const end = window.indexOf(close, from);
    if (end < 0) return null;
    const change = window.indexOf(`<${prefix}pPrChange`, from);
    if (change < 0 || change > end) {
      body += window.slice(from, end);
      from = end + close.length;
      break;
    }
    // The change's own w:pPr closes before the outer one: both are skipped.
    body += window.slice(from, change);
    const changeEnd = window.indexOf(`</${prefix}pPrChange>`, change);
    if (changeEnd < 0) return null;
    from = changeEnd + `</${prefix}pPrChange>`.length;
  }
  const style = /<(?:[\w.-]+:)?pStyle\b[^>]*>/.exec(body);
  const numPr = /<(?:[\w.-]+:)?numPr\b[^>]*?(\/?)>([\s\S]*?)(?:<\/(?:[\w.-]+:)?numPr>|$)/.exec(body);
  const inNumPr = (name: string) => {
    const tag = numPr && new RegExp(`<(?:[\\w.-]+:)?${name}\\b[^>]*>`).exec(numPr[1] === '/' ? '' : numPr[2]);
    return tag ? attributeValue(tag[0]) : null;
  };
  return {
    end: tagEnd + 1 + from,
    properties: { styleId: style ? attributeValue(style[0]) : null, numbering: numPr ? { numId: inNumPr('numId'), level: inNumPr('ilvl') } : null },
  };
}

/**
 * Writes Word's computed label at the start of each numbered heading ("1.2. ") and of each list
 * item whose label repeats the levels above it ("2.3.1."), and marks each other numbered item's
 * number (both for finishListLabels). Counts every numbered paragraph, in document order
 * (mc:Choice left out: it repeats its mc:Fallback, which is what mammoth reads). Works on the
 * text of document.xml, inserting one run after each numbered paragraph's w:pPr: a DOM of a large
 * body cost as much again as mammoth (5 MB of numbered body: +140 MB, +4 s); this is one pass
 * of regular expressions over the text. Returns the text, itself when nothing was labelled.
 */
export function labelNumberedParagraphs(documentXml: string, numberingXml: Element, styles: ParagraphStyles): string {
  const { levels, levelOfStyle } = readNumbering(numberingXml, styles);
  const counters = new Map<string, Array<number | undefined>>();
  const pieces: string[] = [];
  let copied = 0;
  let choiceDepth = 0;
  for (const match of documentXml.matchAll(PARAGRAPH_OR_CHOICE)) {
    const [tag, closing, prefix = '', name, selfClosing] = match;
    if (name === 'Choice') {
      if (!selfClosing) choiceDepth = Math.max(0, choiceDepth + (closing ? -1 : 1));
      continue;
    }
    if (closing || selfClosing || choiceDepth > 0) continue;
    const after = match.index + tag.length;
    const read = paragraphProperties(documentXml, after, prefix);
    const chain = styleChain(read?.properties.styleId ?? null, styles);
    const own = read?.properties.numbering ?? null;
    const fromStyle = chain.find((s) => s.numbering)?.numbering ?? null;
    const numId = own ? (own.numId ?? fromStyle?.numId ?? null) : (fromStyle?.numId ?? null);
    if (!numId || numId === '0') continue;
    const defined = levels.get(numId);
    const level = own?.level != null ? Number(own.level) : (fromStyle?.level ?? chain.map((s) => levelOfStyle.get(s.id)).find((l) => l !== undefined) ?? 0);
    if (!defined?.[level]) continue;

    const count = counters.get(numId) ?? [];
    counters.set(numId, count);
    count[level] = count[level] === undefined ? defined[level].start : count[level]! + 1;
    for (let deeper = level + 1; deeper < 9; deeper++) if (defined[deeper]?.restartsAfterHigher !== false) count[deeper] = undefined;
    const { text, format, legal } = defined[level];
    if (format === 'bullet' || format === 'none') continue;
    let compound = false;
    const label = text.replace(/%([1-9])/g, (_, digit: string) => {
      const at = Number(digit) - 1;
      if (at !== level) compound = true;
      if (!defined[at]) return '';
      count[at] ??= defined[at].start;
      return formatNumber(count[at]!, legal ? 'decimal' : defined[at].format);
    });
    const heading = headingLevel(chain) !== null;
    if (label.trim() === '') continue;
    const insertAt = read?.end ?? after;
    // A one-level item keeps the list's own markdown numbering, told the item's number: a list
    // that starts at 5, or goes on after a paragraph between its items, keeps Word's numbers.
    const shown = heading ? `${label} ` : compound ? `${LABEL_OPEN}${label}${LABEL_CLOSE}` : `${NUMBER_OPEN}${count[level]}${NUMBER_CLOSE}`;
    pieces.push(documentXml.slice(copied, insertAt), `<${prefix}r><${prefix}t xml:space="preserve">${escapeHtml(shown)}</${prefix}t></${prefix}r>`);
    copied = insertAt;
  }
  if (pieces.length === 0) return documentXml;
  pieces.push(documentXml.slice(copied));
  return pieces.join('');
}

/**
 * In mammoth's HTML: a list whose items carry computed labels becomes a bulleted list of
 * "2.3.1. text" items (as Docling writes them), since the labels already number them; an item of
 * a one-level ordered list gets Word's number as its `value`; and a list that only wraps a deeper
 * one is unwrapped.
 */
export function finishListLabels(root: HTMLElement): void {
  // A list resumed deeper than where it left off (after a paragraph between its items) comes from
  // mammoth as a list whose one item holds nothing but the deeper list: it is that list alone.
  for (const item of root.querySelectorAll('li')) {
    const [inner, ...others] = item.childNodes.filter((n) => !(n instanceof TextNode && n.rawText.trim() === ''));
    const list = item.parentNode;
    if (others.length > 0 || !(inner instanceof HTMLElement) || !['ol', 'ul'].includes(inner.rawTagName) || list?.childNodes.length !== 1) continue;
    if (list.parentNode && ['ol', 'ul'].includes(list.rawTagName)) list.replaceWith(inner);
  }
  for (const item of root.querySelectorAll('li')) {
    const first = item.firstChild;
    if (!(first instanceof TextNode) || item.parentNode?.rawTagName !== 'ol') continue;
    if (first.rawText.startsWith(LABEL_OPEN)) item.parentNode.tagName = 'ul';
    else if (first.rawText.startsWith(NUMBER_OPEN)) item.setAttribute('value', first.rawText.slice(1, first.rawText.indexOf(NUMBER_CLOSE)));
  }
  for (const text of labelTexts(root)) text.rawText = text.rawText.replace(MARKED_LABEL, '$1 ').replace(MARKED_NUMBER, '');
}

function labelTexts(node: HTMLElement, out: TextNode[] = []): TextNode[] {
  for (const c of node.childNodes) {
    if (c instanceof TextNode) {
      if (c.rawText.includes(LABEL_OPEN) || c.rawText.includes(NUMBER_OPEN)) out.push(c);
    } else if (c instanceof HTMLElement) labelTexts(c, out);
  }
  return out;
}

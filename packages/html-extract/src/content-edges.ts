import { BLOCK_TAGS, SKIP_TAGS } from './main-region.js';
import { isHidden } from './plain-text.js';

/**
 * Boilerplate left at the end of the chosen content, after the article's last paragraph: the
 * furniture steps (main-region.ts) remove what is named as furniture, and this step what is
 * shaped like it. The chosen content is read as lines (the text between block boundaries, as a
 * reader sees them), each a link line, a label, a teaser or other text; the cuts below go from
 * one line to the end of the content, never half its text. Two cuts elsewhere: a menu or staff
 * list that opens the content before the first paragraph, and the same short line many times in
 * a row.
 */

/** Elements that start and end a line: main-region's blocks, plus `<br>` (lines of links between breaks are lines). */
const LINE_TAGS = new Set([...BLOCK_TAGS, 'BR']);
/** Never text of a line: main-region's, plus form controls (a search box's "Go" is no label). */
const NOT_TEXT_TAGS = new Set([...SKIP_TAGS, 'BUTTON', 'SELECT', 'INPUT', 'TEXTAREA']);
const ELEMENT = 1;
const TEXT = 3;
const HEADING = /^H[1-6]$/;

interface Line {
  text: string;
  chars: number;
  /** Characters inside links. */
  linkChars: number;
  heading: boolean;
  /** In a row of a table of two cells or more (a layout table has one or two a row, and lines in them). */
  cell: boolean;
  /** In a blockquote: quoted content (an embedded post and its attribution line), never boilerplate by shape. */
  quoted: boolean;
  /** An item of a numbered list (`<ol>`): an enumeration the author wrote (products, resources, steps), never a menu by shape. */
  numbered: boolean;
  /** Its first text node: cutting from the line removes this node and everything after it. */
  first: Node;
  kind: Kind;
}

/** The lines of `root` in reading order, in one walk. */
function linesOf(root: Element): Line[] {
  const lines: Line[] = [];
  let parts: string[] = [];
  let linkChars = 0;
  let first: Node | null = null;
  let headings = 0;
  let dataRows = 0;
  let quotes = 0;
  let numbered = 0;
  const flush = () => {
    const text = parts.join(' ').replace(/\s+/g, ' ').trim();
    if (text && first) {
      const line = { text, chars: text.length, linkChars: Math.min(linkChars, text.length), heading: headings > 0, cell: dataRows > 0, quoted: quotes > 0, numbered: numbered > 0, first };
      lines.push({ ...line, kind: kindOf(line) });
    }
    parts = [];
    linkChars = 0;
    first = null;
  };
  const visit = (el: Element, inLink: boolean) => {
    const link = inLink || (el.tagName.toUpperCase() === 'A' && el.hasAttribute('href'));
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT) {
        const value = child.nodeValue ?? '';
        const chars = value.replace(/\s+/g, ' ').trim().length;
        if (!chars) continue;
        parts.push(value);
        if (link) linkChars += chars;
        first ??= child;
        continue;
      }
      if (child.nodeType !== ELEMENT) continue;
      const childEl = child as Element;
      const tag = childEl.tagName.toUpperCase();
      if (NOT_TEXT_TAGS.has(tag) || isHidden(childEl)) continue;
      if (!LINE_TAGS.has(tag)) {
        visit(childEl, link);
        continue;
      }
      flush();
      const heading = HEADING.test(tag);
      // Layout tables put a whole page in one or two cells a row; data tables have rows of cells.
      const dataRow = tag === 'TR' && childEl.childElementCount >= 2;
      const quote = tag === 'BLOCKQUOTE';
      const ordered = tag === 'OL';
      if (heading) headings++;
      if (dataRow) dataRows++;
      if (quote) quotes++;
      if (ordered) numbered++;
      visit(childEl, link);
      flush();
      if (heading) headings--;
      if (dataRow) dataRows--;
      if (quote) quotes--;
      if (ordered) numbered--;
    }
  };
  visit(root, false);
  flush();
  return lines;
}

/** A line that is mostly link text: a headline of a listing, a menu item, "Read more". */
const LINK_LINE_SHARE = 0.6;
/** Labels ("Related content:", "Recent Posts", a date) are short and end without a sentence mark. */
const LABEL_MAX_CHARS = 60;
const HEADING_LABEL_MAX_CHARS = 150;
/** A teaser: the first lines of another article, cut off ("…", "Read more..."). */
const TEASER_MAX_CHARS = 300;
const TEASER_END = /(?:…|\.\.\.|\bread more\W*|\bmore\s*»|\[…\])$/i;
const SENTENCE_END = /[.!?]$/;

type Kind = 'link' | 'label' | 'teaser' | 'other';

function kindOf(line: Omit<Line, 'kind'>): Kind {
  // Quoted content and a numbered list's items are the article's, whatever their shape (a
  // tweet's link and its attribution line, a list of products or resources, each a link).
  if (line.quoted || line.numbered) return 'other';
  if (line.linkChars >= LINK_LINE_SHARE * line.chars) return 'link';
  // A data table's cells are content however short; a table of links only is a menu.
  if (line.cell) return 'other';
  if (line.chars < TEASER_MAX_CHARS && TEASER_END.test(line.text)) return 'teaser';
  if (SENTENCE_END.test(line.text)) return 'other';
  if (line.chars < LABEL_MAX_CHARS || (line.heading && line.chars < HEADING_LABEL_MAX_CHARS)) return 'label';
  return 'other';
}

/**
 * A paragraph of the article: long, with sentence punctuation, few links, not a heading and not
 * a teaser (cut off, or followed by its "Read more" link: a listing's item, not the article).
 */
function articleParagraph(line: Line, next: Line | undefined): boolean {
  if (line.chars < PARAGRAPH_MIN_CHARS || line.linkChars > PARAGRAPH_MAX_LINK_SHARE * line.chars || line.heading) return false;
  if (line.text.split(' ').length < PARAGRAPH_MIN_WORDS || !/[.!?;:,。！？]/.test(line.text)) return false;
  return !TEASER_END.test(line.text) && !readMoreLink(next);
}
const PARAGRAPH_MIN_CHARS = 80;
const PARAGRAPH_MIN_WORDS = 12;
const PARAGRAPH_MAX_LINK_SHARE = 0.3;

const READ_MORE =
  /^\W*(?:(?:read|learn|see|view|find out) more|more|weiterlesen|mehr(?: lesen)?|lire la suite|en savoir plus|leer m[aá]s|seguir leyendo|czytaj (?:dalej|więcej)|continue reading)\W*$/i;
const readMoreLink = (line: Line | undefined) =>
  line !== undefined && line.chars < READ_MORE_MAX_CHARS && line.linkChars >= LINK_LINE_SHARE * line.chars && READ_MORE.test(line.text);
const READ_MORE_MAX_CHARS = 40;

/**
 * Labels that name a listing of other pages: related and recommended reading, recent and
 * most-read posts, categories, archives, in the corpora's languages. "Previous posts in the
 * series", "Sources", "Links" are the article's own and stay.
 */
const LISTING_LABEL = new RegExp(
  [
    String.raw`^\W*(?:related|more (?:in|from|on|about|of|stories|news|articles|posts|headlines)|more\b.*\b(?:stories|news|articles|posts|headlines)`,
    String.raw`(?:you|we think you) (?:might|may|will|could) (?:also )?(?:like|enjoy|be interested)|also on|read (?:also|next|more)`,
    String.raw`recent(?:ly)? (?:posts|articles|stories|news|entries|comments)|most popular|most read|trending|recommended|top stories`,
    String.raw`latest (?:news|stories|posts|articles|headlines)|categories|archives?|tags?\b|other (?:stories|news|articles|posts)`,
    String.raw`mehr (?:zum|zu|aus|von|über|news|nachrichten|artikel)|weitere (?:artikel|nachrichten|beiträge|themen|news|meldungen|links)|weiterführende|ähnliche|meistgelesen|das könnte|auch interessant`,
    String.raw`(?:à )?lire aussi|voir aussi|sur le même sujet|articles? (?:similaires|liés)|(?:te|le) puede interesar|noticias relacionadas|lee también|más (?:noticias|información|de)|relacionad`,
    String.raw`zobacz (?:też|także)|czytaj (?:też|także)|polecamy|więcej)`,
  ].join('|'),
  'i',
);
/** Links a listing label must head to be a listing ("Related posts:" and two headlines). */
const LISTING_MIN_LINKS = 2;
/** A menu without a label: many link items of a few words (categories, archives, a site's sections). */
const MENU_MIN_ITEMS = 6;
const MENU_MAX_WORDS = 3;
/** Teasers that make the lines after the article's last paragraph a listing of other posts. */
const LISTING_MIN_TEASERS = 3;

/**
 * Cuts the content from line `from` to the end, unless that is half its text or more (a page
 * of link lists is what it is). Images and empty wrappers before the line stay.
 */
function cutFrom(lines: Line[], from: number, root: Element): boolean {
  if (from <= 0 || from >= lines.length || !underHalf(lines, from, lines.length)) return false;
  const start = lines[from].first;
  for (let node: Node | null = start; node && node !== root; node = node.parentNode) while (node.nextSibling) node.nextSibling.remove();
  start.parentNode?.removeChild(start);
  lines.length = from;
  return true;
}
const MAX_CUT_SHARE = 0.5;

/** Whether lines `start` to `end` (exclusive) hold under half the content's text. */
function underHalf(lines: Line[], start: number, end: number): boolean {
  let total = 0;
  let cut = 0;
  for (let i = 0; i < lines.length; i++) {
    total += lines[i].chars;
    if (i >= start && i < end) cut += lines[i].chars;
  }
  return cut < MAX_CUT_SHARE * total;
}

/**
 * Calls to subscribe or follow and "Posted by … at …" lines that close the content (with labels
 * and links after them: "Close", "TOP JOBS"): the blog's or the site's, not the article's. Only
 * phrases of the template kind; an author's own "follow me on Twitter and subscribe to the RSS
 * feed." is as often part of the post.
 */
const CLOSING = new RegExp(
  [
    String.raw`\b(?:subscribe to (?:our|the) (?:newsletter|mailing list|e-?mail)|sign up (?:for|to) (?:our|the)|newsletters?|e-?mail (?:updates|alerts)|free updates|to your inbox`,
    String.raw`trackbacks?|responses to this entry|(?:we)?blogs that reference|join our (?:list|mailing list|newsletter)|follow us|like us|abonnier\w*|folgen sie uns|abonnez|inscrivez|suivez-nous|suscr[ií]b\w*|s[ií]guenos|subskrybuj|obserwuj nas|zapisz się)\b`,
    String.raw`^posted by\b|^this (?:entry|post) was (?:posted|filed)|^filed under|^about the author\b`,
  ].join('|'),
  'i',
);
const CLOSING_MAX_CHARS = 320;
const CLOSING_MAX_LINES = 8;

function cutClosingLines(lines: Line[], root: Element): void {
  const closing = (line: Line) => line.chars < CLOSING_MAX_CHARS && CLOSING.test(line.text);
  let from = -1;
  for (let i = lines.length - 1; i > 0 && lines.length - i <= CLOSING_MAX_LINES; i--) {
    if (closing(lines[i])) from = i;
    else if (lines[i].kind !== 'label' && lines[i].kind !== 'link') break;
  }
  if (from > 0) cutFrom(lines, from, root);
}

/**
 * A run of link lines (four or more, with labels between them) after the article's paragraphs,
 * with under a quarter of their prose after it: a sidebar or a site footer (headlines, section
 * links, then an "about this site" blurb). A list of the article's own without links, or a link
 * list in the middle of the article with its text going on after it, is no such run.
 */
function cutAtLinkRun(lines: Line[], paragraph: boolean[], root: Element): boolean {
  const kinds = lines.map((line) => line.kind);
  let proseTotal = 0;
  for (let i = 0; i < lines.length; i++) if (paragraph[i]) proseTotal += lines[i].chars;
  // Sentences from each line on: lines of text that end like one (not a headline, not a
  // listing's item followed by its "Read more" link).
  const sentencesFrom = new Array<number>(lines.length + 1).fill(0);
  for (let i = lines.length - 1; i >= 0; i--) {
    const sentence = kinds[i] === 'other' && SENTENCE_END.test(lines[i].text) && !readMoreLink(lines[i + 1]);
    sentencesFrom[i] = sentencesFrom[i + 1] + (sentence ? 1 : 0);
  }
  let proseBefore = 0;
  for (let i = 0; i < lines.length; i++) {
    if (paragraph[i] || kinds[i] === 'other' || proseBefore === 0) {
      if (paragraph[i]) proseBefore += lines[i].chars;
      continue;
    }
    // A label opens a run when links follow it; items without links are the article's list.
    if (kinds[i] !== 'link' && kinds[i + 1] !== 'link') continue;
    let end = i;
    let links = 0;
    for (; end < lines.length && !paragraph[end] && kinds[end] !== 'other'; end++) if (kinds[end] === 'link') links++;
    const blurb = sentencesFrom[end] <= LINK_RUN_MAX_SENTENCES_AFTER && proseTotal - proseBefore < LINK_RUN_MAX_PROSE_AFTER * proseBefore;
    if (links >= LINK_RUN_MIN_LINKS && end < lines.length && blurb) return cutFrom(lines, i, root);
    i = end - 1;
  }
  return false;
}
const LINK_RUN_MIN_LINKS = 4;
const LINK_RUN_MAX_PROSE_AFTER = 0.25;
/** A site's blurb is a sentence or three; more (a references section) is the page's own. */
const LINK_RUN_MAX_SENTENCES_AFTER = 3;

/**
 * What follows the article's last paragraph when all of it is link lines, labels and teasers:
 * a listing of other pages if it holds three teasers ("Recent posts" with their first lines,
 * "Read more..."), and from a listing label with links under it ("Related content:", "Mehr zum
 * Thema") or a menu of short links (categories, archives) on.
 */
function cutTrailingListing(lines: Line[], paragraph: boolean[], root: Element): void {
  const last = paragraph.lastIndexOf(true);
  if (last < 0) return;
  const kinds = lines.map((line) => line.kind);
  let from = lines.length;
  while (from - 1 > last && kinds[from - 1] !== 'other') from--;
  if (from >= lines.length) return;
  if (kinds.slice(from).filter((k) => k === 'teaser').length >= LISTING_MIN_TEASERS) {
    cutFrom(lines, from, root);
    return;
  }
  for (let i = from; i < lines.length; ) {
    // A group: a label or nothing, then a run of link lines.
    const labelled = kinds[i] === 'label';
    let end = labelled ? i + 1 : i;
    let words = 0;
    for (; end < lines.length && kinds[end] === 'link'; end++) words += lines[end].text.split(' ').length;
    const links = end - (labelled ? i + 1 : i);
    const listing = labelled && lines[i].chars < LABEL_MAX_CHARS && LISTING_LABEL.test(lines[i].text) && links >= LISTING_MIN_LINKS;
    const menu = links >= MENU_MIN_ITEMS && words <= MENU_MAX_WORDS * links;
    if (listing || menu) {
      cutFrom(lines, i, root);
      return;
    }
    i = Math.max(end, i + 1);
  }
}

/**
 * The same short line many times in a row (a slideshow's title under each of its 80 slides) is
 * the template's, never the article's. Only copies in a row: an interview's "Anne:", a recipe's
 * "g" or a guide's "Summary" heading recur with the article's text between them.
 */
function cutRepeatedLines(lines: Line[], root: Element): boolean {
  let cut = false;
  for (let i = 0; i < lines.length; ) {
    let end = i + 1;
    while (end < lines.length && lines[end].text === lines[i].text) end++;
    if (end - i >= REPEATED_LINE_MIN_COPIES && repeatable(lines[i])) {
      for (let j = i; j < end; j++) removeLine(lines[j], root);
      cut = true;
    }
    i = end;
  }
  return cut;
}
/**
 * Labels only: the same link text in a row ("PDF", "link", "Download") usually points at
 * different pages, each an item of the article's own list.
 */
const repeatable = (line: Line) => !line.cell && /\p{L}/u.test(line.text) && line.kind === 'label';
/** A title twice (heading and breadcrumb) is not yet the template's. */
const REPEATED_LINE_MIN_COPIES = 5;

/** Removes a line's text with the elements that hold nothing else. */
function removeLine(line: Line, root: Element): void {
  let node: Node = line.first;
  while (node.parentNode && node.parentNode !== root && (node.parentNode.textContent ?? '').replace(/\s+/g, ' ').trim() === line.text) node = node.parentNode;
  node.parentNode?.removeChild(node);
}

/**
 * A run of eight link lines or labels or more that opens the content, before the article's first
 * paragraph: a site's menu, a staff list of names and titles. Headings end the run (the title
 * and the article's own headings stay), and so do a line of text and a label with figures (a
 * recipe's times, a book's ISBN and price, a date: the article's facts box), so a short list
 * of links or a facts box before the first paragraph stays. Never half the text.
 */
function cutLeadingRun(lines: Line[], paragraph: boolean[], root: Element): boolean {
  let end = 0;
  while (end < lines.length && !paragraph[end] && !lines[end].heading && menuOrName(lines[end])) end++;
  if (end < LEADING_RUN_MIN_LINES || end >= lines.length || !paragraph.slice(end).includes(true) || !underHalf(lines, 0, end)) return false;
  for (let node: Node | null = lines[end].first; node && node !== root; node = node.parentNode) while (node.previousSibling) node.previousSibling.remove();
  lines.splice(0, end);
  paragraph.splice(0, end);
  return true;
}
const LEADING_RUN_MIN_LINES = 8;
/** A link line, or a label without figures: a label with figures is a fact ("Prep 15 min", "ISBN: 978…", a date). */
const menuOrName = (line: Line) => line.kind === 'link' || (line.kind === 'label' && !/\d/.test(line.text));

/**
 * Cuts the boilerplate left after the article in the chosen content (see the top of the file).
 * Returns whether anything was cut. Linear in the content: one walk for the lines, and each
 * step reads each line a bounded number of times.
 */
export function trimContentEdges(root: Element): boolean {
  let lines = linesOf(root);
  const count = lines.length;
  const repeats = cutRepeatedLines(lines, root);
  if (repeats) lines = linesOf(root);
  cutClosingLines(lines, root);
  const paragraph = lines.map((line, i) => articleParagraph(line, lines[i + 1]));
  const leading = cutLeadingRun(lines, paragraph, root);
  if (!cutAtLinkRun(lines, paragraph, root)) cutTrailingListing(lines, paragraph, root);
  return repeats || leading || lines.length < count;
}

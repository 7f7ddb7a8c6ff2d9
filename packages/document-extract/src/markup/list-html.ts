/** A paragraph, or a list item with its list's kind and its depth, as formats that store lists flat give them (slides, OpenDocument). */
export interface ListParagraph {
  /** Inline HTML. */
  html: string;
  /** A list item of a bulleted (ul) or numbered (ol) list, or a paragraph (null). */
  bullet: 'ul' | 'ol' | null;
  /** Nesting depth of a list item, 0 for the outermost. */
  level: number;
}

/** Paragraphs and list items; consecutive items become one list, nested by level. */
export function listParagraphsHtml(paragraphs: ListParagraph[]): string {
  let html = '';
  const open: Array<'ul' | 'ol'> = [];
  const closeTo = (depth: number) => {
    while (open.length > depth) html += `</li></${open.pop()}>`;
  };
  for (const paragraph of paragraphs) {
    if (paragraph.bullet === null) {
      closeTo(0);
      html += `<p>${paragraph.html}</p>`;
      continue;
    }
    // One level deeper than the open lists at most; a new kind of list at the same depth starts anew.
    const depth = Math.min(paragraph.level, open.length) + 1;
    closeTo(depth);
    if (open.length === depth && open[depth - 1] !== paragraph.bullet) closeTo(depth - 1);
    if (open.length === depth) {
      html += `</li><li>${paragraph.html}`;
    } else {
      html += `<${paragraph.bullet}><li>${paragraph.html}`;
      open.push(paragraph.bullet);
    }
  }
  closeTo(0);
  return html;
}

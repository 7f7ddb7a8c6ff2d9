import { DOMParser } from '@xmldom/xmldom';
import type JSZip from 'jszip';

/**
 * WordprocessingML helpers for the parts mammoth does not read (headers, footers, settings).
 * Elements are matched by local name so that Strict OOXML (other namespace URIs) works too.
 */
export function parseXml(xml: string): Document | null {
  let fatal = false;
  const document = new DOMParser({
    errorHandler: { warning: () => undefined, error: () => undefined, fatalError: () => (fatal = true) },
  }).parseFromString(xml, 'text/xml');
  return fatal || !document?.documentElement ? null : document;
}

/** The root element of a part of the package, parsed; null when it is missing or not well-formed XML. */
export async function readXmlPart(zip: JSZip, name: string): Promise<Element | null> {
  const file = zip.file(name);
  if (!file) return null;
  return parseXml(await file.async('string'))?.documentElement ?? null;
}

export function childElements(node: Node): Element[] {
  const out: Element[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) if (child.nodeType === 1) out.push(child as Element);
  return out;
}

/** Attribute by local name, whatever its prefix (w:val, r:id, ...). */
export function attribute(element: Element, localName: string): string | null {
  for (let i = 0; i < element.attributes.length; i++) {
    const attr = element.attributes.item(i);
    if (attr && (attr.localName === localName || attr.name === localName)) return attr.value;
  }
  return null;
}

/** An on/off property (w:titlePg, w:evenAndOddHeaders): present means on unless w:val says otherwise. */
export function isOn(element: Element | undefined): boolean {
  if (!element) return false;
  const value = attribute(element, 'val');
  return value === null || !['0', 'false', 'off'].includes(value.toLowerCase());
}

/**
 * Text of a header or footer part: one line per paragraph, table rows as tab-separated cells.
 * Deleted text (w:delText), field codes (w:instrText) and mc:Choice (whose w:txbxContent
 * duplicates the mc:Fallback one) are skipped; line breaks and tabs are kept.
 */
export function storyText(root: Element): string {
  return blockLines(root)
    .map((line) => line.replace(/[ \t]+$/, ''))
    .filter((line) => line.trim() !== '')
    .join('\n');
}

function blockLines(node: Element): string[] {
  const lines: string[] = [];
  for (const child of childElements(node)) {
    if (child.localName === 'p') lines.push(...paragraphLines(child));
    else if (child.localName === 'tbl') {
      for (const row of childElements(child).filter((e) => e.localName === 'tr')) {
        const cells = childElements(row).filter((e) => e.localName === 'tc');
        lines.push(cells.map((cell) => blockLines(cell).join(' ').replace(/\s+/g, ' ').trim()).join('\t'));
      }
    } else lines.push(...blockLines(child));
  }
  return lines;
}

/** The paragraph's own text, then the paragraphs of any text box anchored in it. */
function paragraphLines(paragraph: Element): string[] {
  const text: string[] = [];
  const boxes: string[] = [];
  const inline = (node: Element): void => {
    for (const child of childElements(node)) {
      switch (child.localName) {
        case 't':
          text.push(child.textContent ?? '');
          break;
        case 'tab':
          text.push('\t');
          break;
        case 'br':
        case 'cr':
          text.push('\n');
          break;
        case 'noBreakHyphen':
          text.push('-');
          break;
        case 'txbxContent':
          boxes.push(...blockLines(child));
          break;
        case 'delText':
        case 'instrText':
        case 'Choice':
          break;
        default:
          inline(child);
      }
    }
  };
  inline(paragraph);
  return [text.join(''), ...boxes];
}

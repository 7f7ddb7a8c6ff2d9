import type JSZip from 'jszip';
import { attribute, childElements, isOn, parseXml, readXmlPart, storyText } from './docx-xml.js';
import { readRelationships } from './relationships.js';

export interface HeadersFooters {
  headers: string[];
  footers: string[];
}

type Story = 'header' | 'footer';

/**
 * Headers and footers, which mammoth does not read (research notes 4.3). We take what Word
 * shows, following Unstructured's rules: the default part always; the first-page part only
 * when the section has w:titlePg; the even-page part only when settings has
 * w:evenAndOddHeaders (documents often carry first/even parts that are never displayed).
 * A part referenced by several sections is read once. Order: first, default, even.
 */
export async function readHeadersFooters(zip: JSZip, documentXml: string): Promise<HeadersFooters> {
  const targets = new Map([...(await readRelationships(zip, 'word/document.xml'))].map(([id, { target }]) => [id, target]));
  const settings = await readXmlPart(zip, 'word/settings.xml');
  const evenAndOdd = settings ? isOn(childElements(settings).find((e) => e.localName === 'evenAndOddHeaders')) : false;

  const seen = new Set<string>();
  const result: HeadersFooters = { headers: [], footers: [] };
  for (const section of readSections(documentXml)) {
    const titlePage = isOn(childElements(section).find((e) => e.localName === 'titlePg'));
    for (const story of ['header', 'footer'] as const) {
      const references = referencesOf(section, story);
      const wanted = [titlePage ? references.get('first') : undefined, references.get('default'), evenAndOdd ? references.get('even') : undefined];
      for (const id of wanted) {
        const target = id === undefined ? undefined : targets.get(id);
        if (!target || seen.has(target)) continue;
        seen.add(target);
        const part = await readXmlPart(zip, target);
        const text = part ? storyText(part) : '';
        if (text !== '') (story === 'header' ? result.headers : result.footers).push(text);
      }
    }
  }
  return result;
}

function referencesOf(section: Element, story: Story): Map<string, string> {
  const references = new Map<string, string>();
  for (const reference of childElements(section).filter((e) => e.localName === `${story}Reference`)) {
    const id = attribute(reference, 'id');
    if (id) references.set(attribute(reference, 'type') ?? 'default', id);
  }
  return references;
}

/**
 * The w:sectPr elements of the main document, parsed one by one: they are small, while the
 * whole document.xml can be large and is already being parsed by mammoth. A sectPr may nest
 * an older sectPr inside w:sectPrChange, so ends are matched by depth. Each block is wrapped
 * in the document's root start tag so that its namespace prefixes resolve.
 */
function readSections(documentXml: string): Element[] {
  const root = /<([\w.-]+:)?document\b[^>]*>/.exec(documentXml);
  if (!root) return [];
  const rootClose = `</${root[1] ?? ''}document>`;
  const sections: Element[] = [];
  const tag = /<(\/?)(?:[\w.-]+:)?sectPr\b[^>]*?(\/?)>/g;
  let depth = 0;
  let start = -1;
  for (let match = tag.exec(documentXml); match; match = tag.exec(documentXml)) {
    const [text, closing, selfClosing] = match;
    if (!closing && depth === 0) start = match.index;
    if (!closing && !selfClosing) depth++;
    if (closing) depth = Math.max(0, depth - 1);
    if (depth === 0 && start >= 0) {
      const block = documentXml.slice(start, match.index + text.length);
      const parsed = parseXml(root[0] + block + rootClose)?.documentElement;
      const section = parsed ? childElements(parsed)[0] : undefined;
      if (section) sections.push(section);
      start = -1;
    }
  }
  return sections;
}

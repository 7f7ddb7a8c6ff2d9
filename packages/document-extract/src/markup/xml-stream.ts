import { Parser } from 'htmlparser2';

/**
 * A streaming read of the XML parts of the office formats we read ourselves (spreadsheets,
 * slides, OpenDocument, EPUB packages), with htmlparser2 in XML mode: nothing is built but what
 * the reader keeps, so a sheet of a million cells costs its text, not a DOM of it (xmldom holds
 * several hundred bytes an element). Entity declarations in a DOCTYPE are never expanded (only
 * the XML and numeric character references are decoded), so there is no entity bomb to defuse.
 * Element and attribute names are given without their prefix (`text:p` -> `p`; a prefixed
 * attribute also under its full name): generators
 * choose prefixes freely (`x:c` in the Open XML SDK's sheets), and the names we read do not
 * collide within one part.
 */
export interface XmlHandlers {
  open?(name: string, attributes: Record<string, string>): void;
  text?(text: string): void;
  close?(name: string): void;
}

export function readXml(xml: string, handlers: XmlHandlers): void {
  const parser = new Parser(
    {
      onopentag: handlers.open ? (name, attributes) => handlers.open!(localName(name), localAttributes(attributes)) : undefined,
      ontext: handlers.text ? (text) => handlers.text!(text) : undefined,
      onclosetag: handlers.close ? (name) => handlers.close!(localName(name)) : undefined,
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

function localAttributes(attributes: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in attributes) {
    // xmlns declarations say nothing we read, and `xmlns:x` would shadow an attribute named `x`.
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
    const local = localName(name);
    // An unprefixed attribute keeps its name (p:sldId has both `id` and `r:id`); the prefixed one
    // is also kept whole, for the readers that need it (relationshipId).
    if (local === name || !(local in attributes)) out[local] = attributes[name];
    if (local !== name) out[name] = attributes[name];
  }
  return out;
}

/** The relationship id an OOXML element names (`r:id`, whatever the prefix). */
export function relationshipId(attributes: Record<string, string>): string | undefined {
  for (const name in attributes) if (name.endsWith(':id')) return attributes[name];
  return undefined;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text or an attribute value made safe to write into the HTML our readers build. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c]);
}

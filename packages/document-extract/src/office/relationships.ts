import type JSZip from 'jszip';
import { readXml } from '../markup/xml-stream.js';

/** One relationship of an OOXML part: what it points at (a part name within the package) and its type's last word. */
export interface Relationship {
  target: string;
  /** The relationship type's last segment: `worksheet`, `sharedStrings`, `slide`, `notesSlide`, `header`, ... */
  type: string;
}

/**
 * The relationships of `partName` (from `<folder>/_rels/<file>.rels`), by id, with targets
 * resolved to part names. External targets (hyperlinks, linked files) are left out: we never
 * follow them.
 */
export async function readRelationships(zip: JSZip, partName: string): Promise<Map<string, Relationship>> {
  const slash = partName.lastIndexOf('/');
  const relsName = `${partName.slice(0, slash + 1)}_rels/${partName.slice(slash + 1)}.rels`;
  const relationships = new Map<string, Relationship>();
  const xml = await zip.file(relsName)?.async('string');
  if (!xml) return relationships;
  readXml(xml, {
    open(name, attributes) {
      if (name !== 'Relationship' || !attributes.Id || !attributes.Target || attributes.TargetMode === 'External') return;
      relationships.set(attributes.Id, { target: resolvePartName(partName, attributes.Target), type: (attributes.Type ?? '').replace(/^.*\//, '') });
    },
  });
  return relationships;
}

/** A relationship's Target, resolved against the folder of the part that names it. */
export function resolvePartName(fromPart: string, target: string): string {
  if (target.startsWith('/')) return target.replace(/^\/+/, '');
  const parts = fromPart.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

import { NodeHtmlMarkdown } from 'node-html-markdown';
import { HTMLElement } from 'node-html-parser';

/**
 * Markdown from an HTML tree with node-html-markdown (GFM tables, emphasis, links).
 * NHM is super-linear in input size (research notes §7: 442 KB took 2-4 s, the same split in
 * chunks 0.3 s), so top-level blocks are translated in chunks of about CHUNK_CHARS each.
 */
const CHUNK_CHARS = 32 * 1024;

const translator = new NodeHtmlMarkdown({
  bulletMarker: '-',
  codeBlockStyle: 'fenced',
  maxConsecutiveNewlines: 2,
  keepDataImages: false,
  // Images are not processed (SPEC); an empty ![](...) only adds noise.
  ignore: ['img', 'script', 'style', 'noscript', 'template', 'head', 'title', 'svg'],
});

export function htmlToMarkdown(root: HTMLElement): string {
  const chunks: string[] = [];
  let current = '';
  for (const child of chunkableContainer(root).childNodes) {
    const html = child.toString();
    if (current !== '' && current.length + html.length > CHUNK_CHARS) {
      chunks.push(current);
      current = '';
    }
    current += html;
  }
  if (current !== '') chunks.push(current);
  return chunks
    .map((chunk) => translator.translate(chunk).trim())
    .filter((markdown) => markdown !== '')
    .join('\n\n');
}

const WRAPPERS = new Set(['html', 'body', 'div', 'main', 'article', 'section', 'center', 'form']);

/** Pages often wrap everything in one element; chunking needs the level where the blocks are. */
function chunkableContainer(root: HTMLElement): HTMLElement {
  let container = root;
  for (;;) {
    const children = container.childNodes.filter((n) => !(n.nodeType === 3 && n.rawText.trim() === ''));
    const only = children.length === 1 ? children[0] : undefined;
    if (!(only instanceof HTMLElement) || !WRAPPERS.has(only.rawTagName?.toLowerCase() ?? '')) return container;
    container = only;
  }
}

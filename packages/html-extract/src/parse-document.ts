import { parseHTML } from 'linkedom';

/**
 * Deepest element nesting kept as elements. Real pages stay far below (the corpus's deepest is
 * 37), but Readability's cost grows with the square of the depth (a 1,000-deep chain of <div>
 * took 9 s, 3,000 took a minute) and recursive walkers overflow the stack near 10,000. Browsers
 * cap the depth too (Blink at 512).
 */
export const MAX_DEPTH = 128;

/**
 * Parses prepared HTML (see prepareHtml). linkedom, not jsdom: over the corpus's 93 real pages
 * jsdom parse plus Readability took 5-6x longer with the same Readability output
 * (bench/html-extract.ts). linkedom has no notion of the page URL, so URLs are resolved by the
 * callers.
 */
export function parseDocument(html: string): Document {
  const document = parseHTML(html).document as unknown as Document;
  capDepth(document.documentElement);
  return document;
}

/**
 * Replaces the content of every element at MAX_DEPTH that still has child elements by its text,
 * one line per former element, so pathological nesting costs linear time and no text is lost.
 * Iterative: recursion is exactly what such documents break.
 */
function capDepth(root: Element | null): void {
  if (!root) return;
  const tooDeep: Element[] = [];
  let node: Element | null = root;
  let depth = 1;
  while (node) {
    const child: Element | null = depth < MAX_DEPTH ? node.firstElementChild : null;
    if (depth === MAX_DEPTH && node.firstElementChild) tooDeep.push(node);
    if (child) {
      node = child;
      depth++;
      continue;
    }
    while (node && node !== root && !node.nextElementSibling) {
      node = node.parentElement;
      depth--;
    }
    node = node && node !== root ? node.nextElementSibling : null;
  }
  for (const el of tooDeep) el.textContent = flatText(el);
}

/** The text of a subtree with a line break at every element boundary, without recursion. */
function flatText(el: Element): string {
  const parts: string[] = [];
  const stack: Node[] = [el];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 3) parts.push(node.nodeValue ?? '');
    else if (node.nodeType === 1) {
      parts.push('\n');
      for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
    }
  }
  return parts.join('').replace(/\s*\n\s*/g, '\n').trim();
}

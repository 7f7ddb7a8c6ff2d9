import { HTMLElement, type Node, parse } from 'node-html-parser';
import type { OutputFormat } from '../types.js';

/** Marks a footnote label in markdown output; NHM would escape a literal "[^1]". */
const NOTE_OPEN = '\uE000';
const NOTE_CLOSE = '\uE001';
const NOTE_PLACEHOLDER = new RegExp(`${NOTE_OPEN}([^${NOTE_CLOSE}]*)${NOTE_CLOSE}`, 'g');

/**
 * Turns mammoth's HTML into what our two renderers need:
 *  - footnote/endnote references become "[1]" in plain text and "[^1]" in markdown, and the
 *    note list mammoth appends becomes "[1] text" paragraphs or GFM "[^1]: text" definitions
 *    (mammoth's "↑" back-links are dropped);
 *  - form checkboxes become ☒/☐, which both renderers keep (they drop <input>).
 */
export function prepareMammothHtml(root: HTMLElement, output: OutputFormat): void {
  for (const input of root.querySelectorAll('input')) {
    const type = input.getAttribute('type')?.toLowerCase();
    if (type === 'checkbox' || type === 'radio') input.replaceWith(input.hasAttribute('checked') ? '☒' : '☐');
  }
  rewriteNotes(root, output);
}

/**
 * A note's label in the text, for the HTML our readers build: a placeholder that finishMarkdownNotes
 * turns into "[^1]" in markdown (written as such, the renderer would escape it), "[1]" in plain text.
 */
export function noteMarker(label: string, output: OutputFormat): string {
  return output === 'markdown' ? `${NOTE_OPEN}${label}${NOTE_CLOSE}` : `[${escapeText(label)}]`;
}

/** Replaces the markdown note placeholders with GFM footnote syntax. */
export function finishMarkdownNotes(markdown: string): string {
  return markdown.replace(NOTE_PLACEHOLDER, '[^$1]');
}

function rewriteNotes(root: HTMLElement, output: OutputFormat): void {
  for (const link of root.querySelectorAll('a')) {
    const href = link.getAttribute('href') ?? '';
    if (/^#(?:footnote|endnote)-ref-/.test(href)) {
      link.remove();
      continue;
    }
    const note = /^#(footnote|endnote)-(\d+)$/.exec(href);
    if (!note) continue;
    const label = output === 'markdown' ? `${NOTE_OPEN}${noteLabel(note[1], note[2])}${NOTE_CLOSE}` : escapeText(link.text);
    const wrapper = link.parentNode?.rawTagName === 'sup' && link.parentNode.childNodes.length === 1 ? link.parentNode : link;
    wrapper.replaceWith(label);
  }
  for (const list of root.querySelectorAll('ol')) {
    const items = list.childNodes.filter((n): n is HTMLElement => n instanceof HTMLElement);
    const notes = items.map((item) => /^(footnote|endnote)-(\d+)$/.exec(item.id));
    if (items.length === 0 || notes.some((n) => n === null)) continue;
    const paragraphs = items.map((item, i) => {
      const [, kind, number] = notes[i] as RegExpExecArray;
      const label = output === 'markdown' ? `${NOTE_OPEN}${noteLabel(kind, number)}${NOTE_CLOSE}:` : `[${number}]`;
      return `<p>${label} ${inlineHtml(item).trim()}</p>`;
    });
    list.replaceWith(paragraphs.join(''));
  }
}

function noteLabel(kind: string, number: string): string {
  return kind === 'endnote' ? `e${number}` : number;
}

/** A note's paragraphs, run together on one line. */
function inlineHtml(item: HTMLElement): string {
  const paragraphs = item.querySelectorAll('p');
  if (paragraphs.length === 0) return item.innerHTML;
  return paragraphs.map((p) => p.innerHTML.trim()).join(' ');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Splits the document at page breaks (mammoth writes w:br type="page" as <hr>, via our style
 * map). Only breaks between or inside top-level blocks split pages; a break inside a table or
 * list is dropped rather than tearing the structure apart.
 */
export function splitPages(root: HTMLElement): HTMLElement[] {
  if (root.querySelector('hr') === null) return [root];
  // Children are moved by hand: appendChild() calls remove(), which is linear in the sibling count.
  const children = root.childNodes;
  root.childNodes = [];

  const pages: HTMLElement[] = [parse('')];
  const current = (): HTMLElement => pages[pages.length - 1];
  const adopt = (node: Node): void => {
    current().childNodes.push(node);
    node.parentNode = current();
  };
  for (const child of children) {
    const tag = child instanceof HTMLElement ? child.rawTagName.toLowerCase() : '';
    if (tag === 'hr') {
      pages.push(parse(''));
    } else if (!(child instanceof HTMLElement) || child.querySelector('hr') === null) {
      adopt(child);
    } else if (['table', 'ul', 'ol'].includes(tag)) {
      for (const hr of child.querySelectorAll('hr')) hr.remove();
      adopt(child);
    } else {
      // A break inside a paragraph: the text after it is reopened in the same kind of element.
      child.outerHTML.split(/<hr\b[^>]*>/i).forEach((part, i) => {
        if (i > 0) pages.push(parse(''));
        for (const node of parse(i > 0 ? `<${tag}>${part}` : part).childNodes) adopt(node);
      });
    }
  }
  return pages;
}

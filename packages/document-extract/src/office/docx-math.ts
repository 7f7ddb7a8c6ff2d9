import { childElements } from './docx-xml.js';

/**
 * Word equations (OMML, m:oMath), which mammoth drops: written as LaTeX in markdown (`$...$`
 * inline, `$$...$$` for a display equation, as Docling, Marker and pandoc write them) and as
 * their plain characters in plain text ("A=πr2"). Before mammoth runs, each equation in
 * word/document.xml is replaced by a run holding a placeholder; the rendered text gets the
 * equation back (mammoth and the markdown renderer would escape LaTeX written into the XML).
 */

const OPEN = '\uE010';
const CLOSE = '\uE011';
const PLACEHOLDER = new RegExp(`${OPEN}(\\d+)${CLOSE}`, 'g');
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

export interface Equation {
  latex: string;
  text: string;
  display: boolean;
}

/**
 * Replaces the equations of a parsed document.xml with placeholder runs, returning them in order.
 * An m:oMathPara (display math) stands alone in its paragraph; an m:oMath inside a paragraph is inline.
 */
export function extractEquations(document: Document): Equation[] {
  const equations: Equation[] = [];
  const found: Element[] = [];
  const walk = (node: Element): void => {
    for (const child of childElements(node)) {
      if (child.localName === 'oMathPara' || child.localName === 'oMath') found.push(child);
      else walk(child);
    }
  };
  walk(document.documentElement);
  for (const math of found) {
    const display = math.localName === 'oMathPara';
    const maths = display ? childElements(math).filter((e) => e.localName === 'oMath') : [math];
    const latex = maths.map((m) => latexOf(m).trim()).join(' \\\\ ').replace(/ {2,}/g, ' ');
    equations.push({ latex, text: maths.map((m) => plainOf(m)).join(' '), display });
    const run = document.createElementNS(W, 'w:r');
    const text = document.createElementNS(W, 'w:t');
    text.appendChild(document.createTextNode(`${OPEN}${equations.length - 1}${CLOSE}`));
    run.appendChild(text);
    // An equation written straight into the body (not in a paragraph) needs a paragraph around its run.
    if (math.parentNode && (math.parentNode as Element).localName === 'body') {
      const paragraph = document.createElementNS(W, 'w:p');
      paragraph.appendChild(run);
      math.parentNode.replaceChild(paragraph, math);
    } else {
      math.parentNode?.replaceChild(run, math);
    }
  }
  return equations;
}

/**
 * The rendered text with each placeholder replaced by its equation: a display equation that
 * stands on its own line as `$$...$$`, any other (inline, or in a table cell) as `$...$`.
 */
export function restoreEquations(text: string, equations: Equation[], markdown: boolean): string {
  if (equations.length === 0) return text;
  const equation = (index: string) => equations[Number(index)];
  if (!markdown) return text.replace(PLACEHOLDER, (_, index: string) => equation(index)?.text ?? '');
  return text
    .replace(new RegExp(`^${PLACEHOLDER.source}$`, 'gm'), (_, index: string) => {
      const found = equation(index);
      return found ? (found.display ? `$$${found.latex}$$` : `$${found.latex}$`) : '';
    })
    .replace(PLACEHOLDER, (_, index: string) => (equation(index) ? `$${equation(index)!.latex}$` : ''));
}

const SYMBOLS: Record<string, string> = {
  α: '\\alpha', β: '\\beta', γ: '\\gamma', δ: '\\delta', ε: '\\epsilon', ζ: '\\zeta', η: '\\eta', θ: '\\theta', ι: '\\iota', κ: '\\kappa',
  λ: '\\lambda', μ: '\\mu', ν: '\\nu', ξ: '\\xi', π: '\\pi', ρ: '\\rho', σ: '\\sigma', τ: '\\tau', υ: '\\upsilon', φ: '\\phi', χ: '\\chi',
  ψ: '\\psi', ω: '\\omega', Γ: '\\Gamma', Δ: '\\Delta', Θ: '\\Theta', Λ: '\\Lambda', Ξ: '\\Xi', Π: '\\Pi', Σ: '\\Sigma', Φ: '\\Phi',
  Ψ: '\\Psi', Ω: '\\Omega', '∞': '\\infty', '±': '\\pm', '∓': '\\mp', '×': '\\times', '÷': '\\div', '·': '\\cdot', '≤': '\\leq', '≥': '\\geq',
  '≠': '\\neq', '≈': '\\approx', '≡': '\\equiv', '→': '\\rightarrow', '←': '\\leftarrow', '⇒': '\\Rightarrow', '∈': '\\in', '∉': '\\notin',
  '⊂': '\\subset', '∪': '\\cup', '∩': '\\cap', '∂': '\\partial', '∇': '\\nabla', '∀': '\\forall', '∃': '\\exists', '…': '\\ldots', '⋯': '\\cdots',
  '−': '-',
};
const NARY: Record<string, string> = { '∑': '\\sum', '∏': '\\prod', '∐': '\\coprod', '∫': '\\int', '∬': '\\iint', '∭': '\\iiint', '∮': '\\oint', '⋃': '\\bigcup', '⋂': '\\bigcap' };
const FUNCTIONS = new Set(['sin', 'cos', 'tan', 'cot', 'sec', 'csc', 'log', 'ln', 'exp', 'lim', 'max', 'min', 'sinh', 'cosh', 'tanh', 'det', 'arg']);
const ACCENTS: Record<string, string> = { '\u0302': '\\hat', '\u0303': '\\tilde', '\u0304': '\\bar', '\u0305': '\\bar', '\u0307': '\\dot', '\u0308': '\\ddot', '\u20d7': '\\vec' };

/** The `m:val` of a property child (m:chr, m:begChr, ...) of an element's m:xxxPr, or undefined. */
function property(element: Element, name: string): string | undefined {
  const properties = childElements(element).find((e) => e.localName.endsWith('Pr'));
  const found = properties ? childElements(properties).find((e) => e.localName === name) : undefined;
  if (!found) return undefined;
  for (let i = 0; i < found.attributes.length; i++) {
    const attribute = found.attributes.item(i);
    if (attribute?.localName === 'val') return attribute.value;
  }
  return '';
}

function part(element: Element, name: string): Element | undefined {
  return childElements(element).find((e) => e.localName === name);
}

function latexOfPart(element: Element, name: string): string {
  const found = part(element, name);
  return found ? latexOf(found).trim() : '';
}

function text(run: Element): string {
  return childElements(run)
    .filter((e) => e.localName === 't')
    .map((e) => e.textContent ?? '')
    .join('');
}

/** LaTeX of an OMML element, following ECMA-376 Part 1, 22.1 (the structures Word's equation editor writes). */
export function latexOf(element: Element): string {
  switch (element.localName) {
    case 'r': {
      const raw = text(element);
      if (FUNCTIONS.has(raw.trim())) return `\\${raw.trim()}`;
      return [...raw].map((c) => (SYMBOLS[c] ? `${SYMBOLS[c]} ` : c)).join('');
    }
    case 'f':
      return `\\frac{${latexOfPart(element, 'num')}}{${latexOfPart(element, 'den')}}`;
    case 'sSup':
      return `${latexOfPart(element, 'e')}^{${latexOfPart(element, 'sup')}}`;
    case 'sSub':
      return `${latexOfPart(element, 'e')}_{${latexOfPart(element, 'sub')}}`;
    case 'sSubSup':
      return `${latexOfPart(element, 'e')}_{${latexOfPart(element, 'sub')}}^{${latexOfPart(element, 'sup')}}`;
    case 'sPre':
      return `{}_{${latexOfPart(element, 'sub')}}^{${latexOfPart(element, 'sup')}}${latexOfPart(element, 'e')}`;
    case 'rad': {
      const degree = latexOfPart(element, 'deg');
      return degree ? `\\sqrt[${degree}]{${latexOfPart(element, 'e')}}` : `\\sqrt{${latexOfPart(element, 'e')}}`;
    }
    case 'nary': {
      const operator = NARY[property(element, 'chr') ?? '∫'] ?? property(element, 'chr') ?? '\\int';
      const sub = latexOfPart(element, 'sub');
      const sup = latexOfPart(element, 'sup');
      return `${operator}${sub ? `_{${sub}}` : ''}${sup ? `^{${sup}}` : ''}${latexOfPart(element, 'e')}`;
    }
    case 'd': {
      const open = property(element, 'begChr') ?? '(';
      const close = property(element, 'endChr') ?? ')';
      const separator = property(element, 'sepChr') ?? '|';
      const inner = childElements(element)
        .filter((e) => e.localName === 'e')
        .map((e) => latexOf(e).trim())
        .join(separator);
      return `\\left${delimiter(open)}${inner}\\right${delimiter(close)}`;
    }
    case 'func':
      return `${latexOfPart(element, 'fName')}${latexOfPart(element, 'e')}`;
    case 'acc': {
      const accent = ACCENTS[property(element, 'chr') ?? '\u0302'] ?? '\\hat';
      return `${accent}{${latexOfPart(element, 'e')}}`;
    }
    case 'bar':
      return `\\overline{${latexOfPart(element, 'e')}}`;
    case 'limLow':
      return `${latexOfPart(element, 'e')}_{${latexOfPart(element, 'lim')}}`;
    case 'limUpp':
      return `${latexOfPart(element, 'e')}^{${latexOfPart(element, 'lim')}}`;
    case 'm':
      return `\\begin{matrix}${childElements(element)
        .filter((e) => e.localName === 'mr')
        .map((row) =>
          childElements(row)
            .filter((e) => e.localName === 'e')
            .map((e) => latexOf(e).trim())
            .join(' & '),
        )
        .join(' \\\\ ')}\\end{matrix}`;
    case 'eqArr':
      return childElements(element)
        .filter((e) => e.localName === 'e')
        .map((e) => latexOf(e).trim())
        .join(' \\\\ ');
    default:
      // Containers (m:e, m:num, m:oMath, m:box, ...) are their children; property elements say nothing.
      if (element.localName.endsWith('Pr')) return '';
      return childElements(element).map(latexOf).join('');
  }
}

function delimiter(char: string): string {
  if (char === '') return '.';
  if (char === '{' || char === '}') return `\\${char}`;
  if (char === '〈' || char === '⟨') return '\\langle ';
  if (char === '〉' || char === '⟩') return '\\rangle ';
  return char;
}

/** The equation's characters in order, as they read on the page without layout. */
function plainOf(element: Element): string {
  if (element.localName === 'r') return text(element);
  if (element.localName.endsWith('Pr')) return '';
  return childElements(element).map(plainOf).join('');
}

import type { LineSink } from './markdown-inline.js';

/**
 * A block container: a list item (`- ` on its first line, indentation after), a definition
 * (`: `) or a quote (`> ` on every line). Containers nest; each line is written with the
 * prefixes of all of them, so nothing already written is ever re-read or re-indented.
 */
interface Container {
  kind: 'item' | 'quote';
  first: string;
  rest: string;
  /** Whether its first line is written: until then, breaks asked for inside it separate nothing. */
  used: boolean;
  /** The line prefix outside it (known once it is used), restored when it closes. */
  outside: string;
}

/**
 * Writes markdown lines inside nested containers, with the separation blocks ask for between
 * them: 1 (a new line) or 2 (a blank line, at most one).
 */
export class BlockWriter implements LineSink {
  private readonly out = new Pieces();
  /** The open containers, `containers[0, depth)`; the objects are reused (a page opens thousands). */
  private readonly containers: Container[] = [];
  private depth = 0;
  /** Prefix of a line inside the containers already used; recomputed when they change. */
  private prefix = '';
  /** Containers on top of the stack whose first line is not written yet. */
  private unused = 0;
  private pending = 0;
  private started = false;
  private separatorPair: [string, string] = ['\n', '\n\n'];
  private separatorsFor = '';

  /** At least `lines` line breaks before the next line. */
  breakAtLeast(lines: 1 | 2): void {
    if (!this.unused && lines > this.pending) this.pending = lines;
  }

  /** Exactly `lines` line breaks before the next line, whatever came before (list items stay tight). */
  breakExactly(lines: 1 | 2): void {
    if (!this.unused) this.pending = lines;
  }

  /** `continued`: the container goes on from lines already written (content after a list item, outside any `<li>`). */
  open(kind: Container['kind'], first: string, rest = first, continued = false): void {
    const used = continued && !this.unused;
    const container = (this.containers[this.depth++] ??= { kind, first, rest, used, outside: '' });
    container.kind = kind;
    container.first = first;
    container.rest = rest;
    container.used = used;
    container.outside = this.prefix;
    if (used) this.prefix += rest;
    else this.unused++;
  }

  close(): void {
    if (!this.depth) return;
    const container = this.containers[--this.depth];
    if (container.used) this.prefix = container.outside;
    else this.unused--;
  }

  /** True inside a list item or definition, where a nested list follows its text directly. */
  inListItem(): boolean {
    return this.depth > 0 && this.containers[this.depth - 1].kind === 'item';
  }

  /** One line of markdown (no line breaks inside); an empty one becomes a blank line. */
  line(text: string): void {
    this.startLine(!text);
    if (text) this.out.push(text);
  }

  /** A paragraph's line, as its pieces `parts[from, to)`. */
  lineParts(parts: readonly string[], from: number, to: number, hardBreak: boolean): void {
    this.startLine(false);
    // Concatenated, not joined: V8 links the pieces and copies them once, when the chunk is joined.
    let line = parts[from];
    for (let i = from + 1; i < to; i++) line += parts[i];
    this.out.push(hardBreak ? `${line}\\` : line);
  }

  /** Writes the line break(s) before a new line and its container prefixes (trimmed for a blank line). */
  private startLine(blank: boolean): void {
    const pending = this.pending;
    this.pending = 0;
    if (!this.started) {
      this.started = true;
      this.out.push(this.openContainers(blank));
      return;
    }
    if (!this.unused && !blank) {
      this.out.push(this.separators()[pending >= 2 ? 1 : 0]);
      return;
    }
    // A blank line belongs to the containers already used, not to those this line opens.
    this.out.push(pending >= 2 ? `\n${this.prefix.trimEnd()}\n` : '\n');
    this.out.push(this.openContainers(blank));
  }

  /** The prefix of a line that may be the first of some containers, which marks them used. */
  private openContainers(blank: boolean): string {
    let prefix = this.prefix;
    for (let i = this.depth - this.unused; i < this.depth; i++) {
      const container = this.containers[i];
      prefix += container.first;
      container.outside = this.prefix;
      this.prefix += container.rest;
      container.used = true;
    }
    this.unused = 0;
    return blank ? prefix.trimEnd() : prefix;
  }

  /** A new line and a blank line then a new line, for the current prefix; made once per prefix (a page writes thousands of lines). */
  private separators(): [string, string] {
    if (this.separatorsFor !== this.prefix) {
      this.separatorsFor = this.prefix;
      this.separatorPair = [`\n${this.prefix}`, `\n${this.prefix.trimEnd()}\n${this.prefix}`];
    }
    return this.separatorPair;
  }

  toString(): string {
    return this.out.join();
  }
}

const CHUNK = 4096;

/**
 * The output as pieces (line breaks, prefixes, lines), joined a chunk at a time in an array that
 * is then reused. One array growing to every piece of a 2 MB article was copied over and over as
 * it grew: a good part of the renderer's garbage, and of the collector's time (measured).
 */
class Pieces {
  private readonly chunk: string[] = [];
  private count = 0;
  private readonly joined: string[] = [];

  push(piece: string): void {
    if (this.count === CHUNK) {
      this.joined.push(this.chunk.join(''));
      this.count = 0;
    }
    this.chunk[this.count++] = piece;
  }

  join(): string {
    this.chunk.length = this.count;
    const last = this.chunk.join('');
    if (!this.joined.length) return last;
    this.joined.push(last);
    return this.joined.join('');
  }
}

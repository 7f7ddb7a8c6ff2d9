import { decodeWindows1252, decoderFor } from '../txt/charset.js';

/**
 * A small RTF reader that keeps the text and drops everything else. It follows the RTF 1.9
 * rules that matter for text: groups, control words and symbols, \'hh bytes in the document
 * code page, \uN with its \ucN fallback skipping, \bin data, and destinations. Unknown
 * ignorable destinations ({\*\...}) and non-text destinations (font table, pictures, field
 * instructions, comments, ...) are skipped; headers, footers and footnotes are collected apart
 * so that the caller can place them like the other Word readers do.
 */
export interface RtfText {
  /** Body pages, split at \page. */
  pages: string[];
  headers: string[];
  footers: string[];
  notes: string[];
}

type Destination = 'body' | 'header' | 'footer' | 'note' | 'skip';

interface GroupState {
  destination: Destination;
  /** Characters to skip after \uN (the ANSI fallback), per \ucN. */
  unicodeSkip: number;
}

const SKIPPED_DESTINATIONS = new Set([
  'fonttbl', 'colortbl', 'stylesheet', 'info', 'pict', 'object', 'objdata', 'themedata', 'colorschememapping',
  'latentstyles', 'datastore', 'xmlnstbl', 'listtable', 'listoverridetable', 'rsidtbl', 'generator', 'fldinst',
  'annotation', 'atnid', 'atnauthor', 'atndate', 'atnref', 'xe', 'tc', 'txe', 'pntext', 'pntxta', 'pntxtb', 'listtext',
  'sp', 'sn', 'sv', 'shprslt', 'nonshppict', 'filetbl', 'revtbl', 'userprops', 'docvar', 'template', 'bkmkstart', 'bkmkend',
  'falt', 'panose', 'leveltext', 'levelnumbers', 'mmathPr', 'pgdsctbl', 'wgrffmtfilter', 'passwordhash', 'protusertbl',
]);
const HEADERS = new Set(['header', 'headerl', 'headerr', 'headerf']);
const FOOTERS = new Set(['footer', 'footerl', 'footerr', 'footerf']);
const NOTES = new Set(['footnote']);

const SYMBOL_WORDS = new Map(Object.entries({
  par: '\n', line: '\n', sect: '\n', row: '\n', tab: '\t', cell: '\t', nestcell: '\t',
  emdash: '\u2014', endash: '\u2013', bullet: '\u2022', lquote: '\u2018', rquote: '\u2019',
  ldblquote: '\u201c', rdblquote: '\u201d', emspace: ' ', enspace: ' ', qmspace: ' ', '~': '\u00a0', _: '\u2011',
}));
const PAGE_MARK = '\f';
const CONTROL_WORD = /\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/y;
const TEXT_RUN = /[^\\{}\r\n]+/y;

export function rtfToText(source: Buffer): RtfText {
  const rtf = source.toString('latin1');
  const decoder = new CodePageDecoder(/\\ansicpg(\d+)/.exec(rtf.slice(0, 4096))?.[1]);
  const buffers: Record<Exclude<Destination, 'skip'>, string[]> = { body: [], header: [], footer: [], note: [] };
  const finished: Record<'header' | 'footer' | 'note', string[]> = { header: [], footer: [], note: [] };
  const stack: GroupState[] = [];
  let state: GroupState = { destination: 'body', unicodeSkip: 1 };
  let pendingSkip = 0;
  let groupStart = false;
  /** The destination before a `{\*` that opened this group, until its first control word says what it is. */
  let starredFrom: Destination | null = null;

  const emit = (text: string): void => {
    decoder.flushInto((t) => state.destination !== 'skip' && buffers[state.destination].push(t));
    if (state.destination !== 'skip') buffers[state.destination].push(text);
  };

  for (let i = 0; i < rtf.length; ) {
    const ch = rtf[i];
    if (ch === '{') {
      decoder.flushInto((t) => state.destination !== 'skip' && buffers[state.destination].push(t));
      stack.push(state);
      state = { ...state };
      groupStart = true;
      i++;
      continue;
    }
    if (ch === '}') {
      decoder.flushInto((t) => state.destination !== 'skip' && buffers[state.destination].push(t));
      const closing = state.destination;
      state = stack.pop() ?? state;
      // A header, footer or note group ends: keep its text as one story.
      if (closing !== 'skip' && closing !== 'body' && closing !== state.destination) {
        finished[closing].push(buffers[closing].join(''));
        buffers[closing] = [];
      }
      groupStart = false;
      i++;
      continue;
    }
    if (ch === '\r' || ch === '\n') {
      i++;
      continue;
    }
    if (ch !== '\\') {
      TEXT_RUN.lastIndex = i;
      let text = TEXT_RUN.exec(rtf)?.[0] ?? ch;
      i += text.length;
      groupStart = false;
      if (pendingSkip > 0) {
        const skipped = Math.min(pendingSkip, text.length);
        text = text.slice(skipped);
        pendingSkip -= skipped;
      }
      // Raw 8-bit text (writers should escape it as \'hh, some do not) is in the code page too.
      if (/[^\x00-\x7f]/.test(text)) {
        if (state.destination !== 'skip') for (const c of text) decoder.push(c.charCodeAt(0));
      } else if (text !== '') emit(text);
      continue;
    }

    // Control symbols.
    const next = rtf[i + 1] ?? '';
    if (next === "'") {
      const byte = parseInt(rtf.slice(i + 2, i + 4), 16);
      i += 4;
      groupStart = false;
      if (pendingSkip > 0) pendingSkip--;
      else if (!Number.isNaN(byte) && state.destination !== 'skip') decoder.push(byte);
      continue;
    }
    if (next === '*') {
      // {\* ...}: an ignorable destination; we read none of those but the notes, headers and
      // footers it may name ({\*\footnote ...}, as LibreOffice writes footnotes).
      if (groupStart) {
        starredFrom = state.destination;
        state.destination = 'skip';
      }
      i += 2;
      continue;
    }
    if (next === '\\' || next === '{' || next === '}') {
      groupStart = false;
      if (pendingSkip > 0) pendingSkip--;
      else emit(next);
      i += 2;
      continue;
    }
    if (next === '\r' || next === '\n') {
      emit('\n');
      i += 2;
      continue;
    }
    if (!/[a-zA-Z]/.test(next)) {
      const symbol = SYMBOL_WORDS.get(next);
      if (symbol) emit(symbol);
      i += 2;
      continue;
    }

    CONTROL_WORD.lastIndex = i;
    const match = CONTROL_WORD.exec(rtf);
    if (!match) {
      i++;
      continue;
    }
    i += match[0].length;
    const [, word, param] = match;
    const wasGroupStart = groupStart;
    groupStart = false;

    if (word === 'bin') {
      i += Math.max(0, Number(param ?? 0));
      continue;
    }
    const starred = starredFrom;
    starredFrom = null;
    if (wasGroupStart && starred !== null && starred !== 'skip' && (HEADERS.has(word) || FOOTERS.has(word) || NOTES.has(word))) {
      state.destination = HEADERS.has(word) ? 'header' : FOOTERS.has(word) ? 'footer' : 'note';
      continue;
    }
    if (wasGroupStart && (SKIPPED_DESTINATIONS.has(word) || HEADERS.has(word) || FOOTERS.has(word) || NOTES.has(word))) {
      state.destination = state.destination === 'skip' || SKIPPED_DESTINATIONS.has(word) ? 'skip' : HEADERS.has(word) ? 'header' : FOOTERS.has(word) ? 'footer' : 'note';
      continue;
    }
    if (word === 'uc') {
      state.unicodeSkip = Number(param ?? 1);
    } else if (word === 'u' && param !== undefined) {
      const code = Number(param);
      emit(String.fromCharCode(code < 0 ? code + 65536 : code));
      pendingSkip = state.unicodeSkip;
      continue;
    } else if (word === 'page') {
      emit(PAGE_MARK);
    } else if (word === 'pard' || word === 'plain') {
      // Formatting resets: no text.
    } else if (SYMBOL_WORDS.has(word)) {
      emit(SYMBOL_WORDS.get(word) ?? '');
    }
    pendingSkip = 0;
  }
  decoder.flushInto((t) => state.destination !== 'skip' && buffers[state.destination].push(t));
  for (const story of ['header', 'footer', 'note'] as const) if (buffers[story].length > 0) finished[story].push(buffers[story].join(''));

  return {
    pages: buffers.body.join('').split(PAGE_MARK),
    headers: unique(finished.header),
    footers: unique(finished.footer),
    notes: finished.note,
  };
}

function unique(stories: string[]): string[] {
  return [...new Set(stories.map((s) => s.trim()).filter((s) => s !== ''))];
}

/** Collects \'hh bytes and decodes runs of them together, so double-byte code pages work. */
class CodePageDecoder {
  private readonly decode: (bytes: Uint8Array) => string;
  private bytes: number[] = [];

  constructor(codePage: string | undefined) {
    this.decode = decoderForCodePage(codePage);
  }

  push(byte: number): void {
    this.bytes.push(byte);
  }

  flushInto(write: (text: string) => void): void {
    if (this.bytes.length === 0) return;
    write(this.decode(Uint8Array.from(this.bytes)));
    this.bytes = [];
  }
}

function decoderForCodePage(codePage: string | undefined): (bytes: Uint8Array) => string {
  const labels: Record<string, string> = { '932': 'shift_jis', '936': 'gbk', '949': 'euc-kr', '950': 'big5', '65001': 'utf-8', '10000': 'macintosh' };
  const label = codePage ? (labels[codePage] ?? `windows-${codePage}`) : 'windows-1252';
  return decoderFor(label) ?? decodeWindows1252;
}

import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';
import { DocumentError } from '../src/errors.js';
import { extractDoc, extractDocx } from '../src/office/index.js';
import { readOleDirectory } from '../src/office/ole-directory.js';
import { parseDocument } from '../src/parse-document.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = (relative: string): Buffer => readFileSync(path.resolve(repoRoot, '../shared/corpus/docs', relative));
const plain = { output: 'plain' } as const;

async function failure(promise: Promise<unknown>): Promise<DocumentError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DocumentError) return error;
    throw error;
  }
  throw new Error('expected a DocumentError');
}

interface RawEntry {
  name: string;
  data: Buffer;
  /** Size written into the headers instead of the real one (a forged archive). */
  declaredSize?: number;
}

/** A deflate ZIP written by hand, so that tests can lie about sizes the way an attacker would. */
function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const compressed = deflateRawSync(entry.data);
    const size = entry.declaredSize ?? entry.data.length;
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Rewrites the uncompressed size of one part in the central directory of a real package. */
function forgeCentralSize(zip: Buffer, part: string, size: number): Buffer {
  const forged = Buffer.from(zip);
  for (let at = forged.indexOf('PK\x01\x02'); at >= 0; at = forged.indexOf('PK\x01\x02', at + 4)) {
    const nameLength = forged.readUInt16LE(at + 28);
    if (forged.toString('utf8', at + 46, at + 46 + nameLength) === part) {
      forged.writeUInt32LE(size, at + 24);
      return forged;
    }
  }
  throw new Error(`no ${part} in the archive`);
}

const contentTypes: RawEntry = { name: '[Content_Types].xml', data: Buffer.from('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>') };

describe('zip bombs in .docx', () => {
  it('refuses a package whose parts declare more than 200 MB, before inflating anything', async () => {
    const forged = forgeCentralSize(corpus('docx/nwe-test01-tracked.docx'), 'word/document.xml', 300 * 1024 * 1024);
    const error = await failure(parseDocument(forged, { declaredType: 'docx', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', message: 'The document exceeds a processing limit' });
    expect(error.details[0]).toMatch(/more than 200 MB/);
  });

  it('refuses a part of zeros with an absurd compression ratio, fast', async () => {
    const bomb = rawZip([contentTypes, { name: 'word/document.xml', data: Buffer.alloc(20 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    const started = Date.now();
    const error = await failure(parseDocument(bomb, { declaredType: 'docx', output: 'plain' }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.code).toBe('400-001');
    expect(error.details[0]).toMatch(/compression ratio above 100:1/);
  });

  it('refuses a part that inflates beyond its forged, small declared size', async () => {
    const bomb = rawZip([contentTypes, { name: 'word/document.xml', data: Buffer.alloc(5 * 1024 * 1024), declaredSize: 1000 }]);
    const error = await failure(extractDocx(bomb, plain));
    expect(error.code).toBe('400-001');
    expect(error.details[0]).toMatch(/expands beyond its declared size/);
  });

  it('refuses a truncated package as damaged', async () => {
    const docx = corpus('docx/nwe-test01-tracked.docx');
    const error = await failure(parseDocument(docx.subarray(0, docx.length - 200), { declaredType: 'docx', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', message: 'The document is damaged' });
  });

  it('refuses an encrypted .docx (an OLE container) with a clear reason', async () => {
    const error = await failure(extractDocx(corpus('docx/tika-protected-passtika.docx'), plain));
    expect(error).toMatchObject({ code: '400-001', message: 'Password-protected documents are not supported' });
  });
});

/** A copy of a real .doc with bytes of its FIB (the head of the WordDocument stream) changed. */
function patchFib(doc: Buffer, patch: (fib: Buffer) => void): Buffer {
  const copy = Buffer.from(doc);
  const stream = readOleDirectory(copy)?.streams.find((s) => s.name === 'WordDocument');
  if (!stream) throw new Error('no WordDocument stream');
  patch(copy.subarray((stream.startSector + 1) * 512));
  return copy;
}

describe('broken and unsupported .doc files', () => {
  const doc = corpus('doc/nwe-test04-headers.doc');

  it('refuses Word 6/95 files instead of crashing', async () => {
    const word6 = patchFib(doc, (fib) => fib.writeUInt16LE(0xa5dc, 0));
    const error = await failure(parseDocument(word6, { declaredType: 'doc', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', message: 'Unsupported file type' });
    expect(error.details[0]).toMatch(/Word 6\.0\/95/);
  });

  it('refuses encrypted .doc files', async () => {
    const encrypted = patchFib(doc, (fib) => fib.writeUInt16LE(fib.readUInt16LE(0x0a) | 0x0100, 0x0a));
    const error = await failure(extractDoc(encrypted, plain));
    expect(error).toMatchObject({ code: '400-001', message: 'Password-protected documents are not supported' });
  });

  it('maps word-extractor crashes on a damaged FIB to 400-001', async () => {
    const damaged = patchFib(doc, (fib) => fib.fill(0x7f, 12, 1000));
    const error = await failure(extractDoc(damaged, plain));
    expect(error).toMatchObject({ code: '400-001', message: 'The document is damaged' });
  });

  it('refuses garbage behind an OLE signature and truncated files with 400-001', async () => {
    const garbage = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(4096, 0x5a)]);
    expect(await failure(parseDocument(garbage, { declaredType: 'doc', output: 'plain' }))).toMatchObject({ code: '400-001' });
    const big = corpus('doc/nwe-bigfile-01.doc');
    expect(await failure(parseDocument(big.subarray(0, 20_000), { declaredType: 'doc', output: 'plain' }))).toMatchObject({ code: '400-001' });
  });
});

describe('files named .doc that are something else', () => {
  it('reads a .docx sent as doc as a .docx', async () => {
    const result = await parseDocument(corpus('docx/nwe-test04-headers.docx'), { declaredType: 'doc', output: 'plain' });
    expect(result.kind).toBe('docx');
    expect(result.text).toContain('This is page two.');
  });

  it('reads a Word "web page" sent as doc as HTML', async () => {
    const html = '<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta charset="windows-1252"><title>T</title><style>p{}</style></head><body><p class=MsoNormal>Caf\xe9 <b>menu</b><o:p></o:p></p><![if !supportLists]><p>\x93Quoted\x94</p><![endif]></body></html>';
    const result = await parseDocument(Buffer.from(html, 'latin1'), { declaredType: 'doc', output: 'plain' });
    expect(result).toMatchObject({ kind: 'html', text: 'Café menu\n\n“Quoted”' });
    const markdown = await parseDocument(Buffer.from(html, 'latin1'), { declaredType: 'doc', output: 'markdown' });
    expect(markdown.text).toBe('Café **menu**\n\n“Quoted”');
  });

  it('reads a single-file web page (.mht) sent as doc', async () => {
    const mht = [
      'MIME-Version: 1.0',
      'Content-Type: multipart/related; boundary="----=_NextPart_01"',
      '',
      'This document is a Single File Web Page.',
      '',
      '------=_NextPart_01',
      'Content-Location: file:///C:/x.htm',
      'Content-Transfer-Encoding: quoted-printable',
      'Content-Type: text/html; charset="utf-8"',
      '',
      '<html><body><p>Gr=C3=BC=C3=9Fe aus der Datei, die sehr lange Zeilen hat und =',
      'umbrochen wird.</p></body></html>',
      '',
      '------=_NextPart_01--',
      '',
    ].join('\r\n');
    const result = await parseDocument(Buffer.from(mht), { declaredType: 'doc', output: 'plain' });
    expect(result).toMatchObject({ kind: 'html', text: 'Grüße aus der Datei, die sehr lange Zeilen hat und umbrochen wird.' });
  });

  it('reads an RTF file sent as doc', async () => {
    const rtf = String.raw`{\rtf1\ansi\ansicpg1252{\fonttbl{\f0 Arial;}}{\header \pard Head\par}\pard Hello \'93world\'94\par\trowd\cellx1000\cellx2000\intbl A\cell B\cell\row\pard End\page Next}`;
    const result = await parseDocument(Buffer.from(rtf, 'latin1'), { declaredType: 'doc', output: 'plain' });
    expect(result).toMatchObject({ kind: 'rtf', pages: 2, text: 'Head\n\nHello “world”\nA\tB\nEnd\n\n=== Page Break ===\n\nNext' });
  });
});

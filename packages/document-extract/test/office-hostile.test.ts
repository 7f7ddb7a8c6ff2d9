import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractDoc, extractDocx } from '../src/office/index.js';
import { readOleDirectory } from '../src/office/ole-directory.js';
import { parseDocument } from '../src/parse-document.js';
import { CONTENT_TYPES, rawZip, zipBombDocx } from '../../../tests/support/hostile-files.js';
import { cpuMs } from '../../../tests/support/cpu-time.js';
import { failure } from './document-failure.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = (relative: string): Buffer => readFileSync(path.resolve(repoRoot, '../shared/corpus/docs', relative));
const plain = { output: 'plain' } as const;

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

const contentTypes = CONTENT_TYPES;

describe('zip bombs in .docx', () => {
  it('refuses a package whose parts declare more than 128 MB, before inflating anything', async () => {
    const forged = forgeCentralSize(corpus('docx/nwe-test01-tracked.docx'), 'docProps/app.xml', 200 * 1024 * 1024);
    const error = await failure(parseDocument(forged, { declaredType: 'docx', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', message: 'The document exceeds a processing limit' });
    expect(error.details[0]).toMatch(/the document exceeds a processing limit: the document expands to more than 128 MB/);
  });

  it('refuses a body of ordinary XML too large for the parser, however well it compresses', async () => {
    // 40 MB of plain paragraphs compress ~25:1, a normal ratio: only the size gives it away.
    // Before the cap, 140 MB like this passed the guard and mammoth ran out of memory (500-001).
    const paragraph = (i: number) => `<w:p><w:r><w:t>Paragraph ${i} of ordinary text, the quick brown fox jumps over the lazy dog.</w:t></w:r></w:p>`;
    const body = Buffer.from(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${Array.from({ length: 400_000 }, (_, i) => paragraph(i)).join('')}</w:body></w:document>`);
    expect(body.length).toBeGreaterThan(40 * 1024 * 1024);
    const started = cpuMs();
    const error = await failure(parseDocument(rawZip([contentTypes, { name: 'word/document.xml', data: body }]), { declaredType: 'docx', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', message: 'The document exceeds a processing limit' });
    expect(error.details[0]).toMatch(/the body \(word\/document\.xml\) expands to more than 24 MB/);
    expect(cpuMs() - started).toBeLessThan(2_000);
    // The same parts spread over several XML files are capped together.
    const third = Buffer.from(body.subarray(0, 12 * 1024 * 1024));
    const spread = rawZip([contentTypes, { name: 'word/document.xml', data: third }, { name: 'word/footnotes.xml', data: third }, { name: 'word/header1.xml', data: third }]);
    expect((await failure(parseDocument(spread, { declaredType: 'docx', output: 'plain' }))).details[0]).toMatch(/XML parts expand to more than 32 MB/);
  }, 30_000);

  it('refuses a part of zeros with an absurd compression ratio, fast', async () => {
    const bomb = zipBombDocx();
    expect(bomb.length).toBeLessThan(100 * 1024);
    const started = cpuMs();
    const error = await failure(parseDocument(bomb, { declaredType: 'docx', output: 'plain' }));
    expect(cpuMs() - started).toBeLessThan(1000);
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

import { describe, expect, it } from '@jest/globals';
import JSZip from 'jszip';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeUnsupported, detectKind } from '../src/detect.js';
import { DocumentError } from '../src/errors.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = (relative: string): Buffer => readFileSync(path.resolve(repoRoot, '../shared/corpus/docs', relative));

const bytes = (...values: number[]): Buffer => Buffer.from(values);
const text = (value: string, encoding: BufferEncoding = 'utf8'): Buffer => Buffer.from(value, encoding);

function ftyp(major: string, ...compatible: string[]): Buffer {
  const size = 16 + compatible.length * 4;
  const box = Buffer.alloc(size + 16);
  box.writeUInt32BE(size, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((brand, i) => box.write(brand, 16 + i * 4, 'latin1'));
  return box;
}

describe('detectKind', () => {
  it('recognises images and PDF by their magic bytes', () => {
    expect(detectKind(bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10))).toBe('jpeg');
    expect(detectKind(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('png');
    expect(detectKind(bytes(0x49, 0x49, 0x2a, 0, 8, 0, 0, 0))).toBe('tiff');
    expect(detectKind(bytes(0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8))).toBe('tiff');
    expect(detectKind(text('%PDF-1.7\n%âãÏÓ\n1 0 obj'))).toBe('pdf');
    // Junk before the header is tolerated within the first kilobyte.
    expect(detectKind(Buffer.concat([Buffer.alloc(300, 0x20), text('%PDF-1.4\n')]))).toBe('pdf');
  });

  it('tells HEIC from AVIF among ISO media files', () => {
    expect(detectKind(ftyp('heic', 'mif1', 'heic'))).toBe('heic');
    expect(detectKind(ftyp('heix', 'mif1'))).toBe('heic');
    expect(detectKind(ftyp('mif1', 'mif1', 'heic'))).toBe('heic');
    expect(detectKind(ftyp('msf1', 'msf1'))).toBe('heic');
    expect(detectKind(ftyp('avif', 'mif1', 'avif'))).toBeNull();
    expect(detectKind(ftyp('mif1', 'mif1', 'avif'))).toBeNull();
    expect(detectKind(ftyp('isom', 'isom', 'mp41'))).toBeNull();
  });

  it('tells the ZIP packages it reads by their parts, whatever the declared type', async () => {
    expect(detectKind(corpus('docx/nwe-test04-headers.docx'))).toBe('docx');
    const workbook = new JSZip();
    workbook.file('[Content_Types].xml', '<Types/>');
    workbook.file('xl/workbook.xml', '<workbook/>');
    expect(detectKind(await workbook.generateAsync({ type: 'nodebuffer' }), 'docx')).toBe('xlsx');
    const archive = new JSZip();
    archive.file('notes/readme.txt', 'hello');
    const zip = await archive.generateAsync({ type: 'nodebuffer' });
    expect(detectKind(zip, 'docx')).toBeNull();
    expect(describeUnsupported(zip)).toMatch(/ZIP archive that is not a document we read/);
  });

  it('reads OLE directories: Word binary, encrypted OOXML, other Office files', () => {
    const doc = corpus('doc/nwe-test05-word97.doc');
    expect(detectKind(doc)).toBe('doc');

    let thrown: unknown;
    try {
      detectKind(corpus('docx/tika-protected-passtika.docx'), 'docx');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DocumentError);
    expect(thrown).toMatchObject({ code: '400-001', message: 'Password-protected documents are not supported' });

    // Rename the WordDocument stream: what is left is an OLE file of some other application.
    const other = Buffer.from(doc);
    const name = Buffer.from('WordDocument', 'utf16le');
    other.write('X', other.indexOf(name), 'utf16le');
    expect(detectKind(other, 'doc')).toBeNull();
    expect(describeUnsupported(other)).toMatch(/OLE compound file/);

    // A damaged OLE container is still sent to the .doc reader, which explains the damage.
    expect(detectKind(Buffer.concat([bytes(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1), Buffer.alloc(600, 7)]))).toBe('doc');
  });

  it('recognises RTF, HTML and MHT text formats whatever the declared type', () => {
    expect(detectKind(text('{\\rtf1\\ansi Hello}'), 'doc')).toBe('rtf');
    expect(detectKind(text('<!DOCTYPE html><html><body>x</body></html>'), 'doc')).toBe('html');
    expect(detectKind(text('\ufeff\n  <html xmlns:o="urn:schemas-microsoft-com:office:office"><body>x</body></html>'), 'doc')).toBe('html');
    expect(detectKind(text('<!-- saved from url=(0014)about:internet -->\n<HTML><BODY>x</BODY></HTML>'))).toBe('html');
    expect(detectKind(text('<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN">\n<html/>'))).toBe('html');
    const mht = 'MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n--b1--\r\n';
    expect(detectKind(text(mht), 'doc')).toBe('html');
    const saved = 'From: <Saved by Blink>\r\nSubject: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related;\r\n\ttype="text/html";\r\n\tboundary="b"\r\n\r\n';
    expect(detectKind(text(saved))).toBe('html');
  });

  it('refuses Word 2003 XML with a clear reason', () => {
    const xml = '<?xml version="1.0"?>\n<?mso-application progid="Word.Document"?>\n<w:wordDocument xmlns:w="http://schemas.microsoft.com/office/word/2003/wordml"/>';
    expect(() => detectKind(text(xml), 'doc')).toThrow(/Unsupported file type/);
  });

  it('treats text as txt, using the declared type only for ambiguous bytes', () => {
    expect(detectKind(text('Hello, world.\n'), 'pdf')).toBe('txt');
    expect(detectKind(text('Καλημέρα κόσμε\n'))).toBe('txt');
    expect(detectKind(text('\ufeffHello', 'utf16le'))).toBe('txt');
    // Mostly 8-bit bytes that are not UTF-8: text only if the caller says so.
    const ambiguous = bytes(0xe9, 0xe8, 0xe0, 0x20, 0xf4, 0xfc, 0xe7, 0xe9, 0x0a);
    expect(detectKind(ambiguous, 'txt')).toBe('txt');
    expect(detectKind(ambiguous, 'pdf')).toBeNull();
    expect(detectKind(ambiguous)).toBeNull();
    // Latin-1 prose is mostly ASCII and needs no hint.
    expect(detectKind(corpus('txt/chardet-iso-8859-1-fr.txt'))).toBe('txt');
    expect(detectKind(Buffer.alloc(0), 'txt')).toBe('txt');
    expect(detectKind(Buffer.alloc(0))).toBeNull();
    expect(describeUnsupported(Buffer.alloc(0))).toBe('the file is empty');
  });

  it('returns null for binary data of unknown formats', () => {
    expect(detectKind(bytes(0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0), 'png')).toBeNull();
    expect(describeUnsupported(bytes(0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0))).toBe('a GIF image');
    const noise = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    expect(detectKind(noise, 'txt')).toBeNull();
    expect(describeUnsupported(noise)).toBe('binary data of an unknown format');
  });
});

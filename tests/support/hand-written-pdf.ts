import { constants, deflateRawSync, deflateSync } from 'node:zlib';

const PAGE = '/Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>';
const HELVETICA = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/** Objects 1.. (index 0 unused) written out with a valid xref table. */
function assemblePdf(objects: Array<string | Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0].length;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = length;
    const body = Buffer.concat([Buffer.from(`${id} 0 obj\n`, 'latin1'), Buffer.from(objects[id] as string | Buffer), Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(body);
    length += body.length;
  }
  let tail = `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) tail += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(tail, 'latin1')]);
}

/**
 * A PDF 1.4 written by hand: one Helvetica text line per entry of each page (US Letter), valid
 * xref. Text PDFs of any length for tests, without a PDF library.
 */
export function handWrittenPdf(pages: string[][]): Buffer {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = HELVETICA;
  pages.forEach((lines, i) => {
    const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
    const stream = `BT /F1 11 Tf 72 760 Td 14 TL ${lines.map((l) => `(${escape(l)}) Tj T*`).join(' ')} ET`;
    objects[pageIds[i]] = `<< ${PAGE} /Contents ${pageIds[i] + 1} 0 R >>`;
    objects[pageIds[i] + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  return assemblePdf(objects);
}

/**
 * A valid PDF whose page tree lists one page object `times` times (/Count says so too): few
 * bytes (6 a listing) claiming as many pages as it likes. pdf.js reads the one page again for
 * every listing.
 */
export function pageListedManyTimesPdf(text: string, times: number): Buffer {
  const stream = `BT /F1 11 Tf 72 760 Td (${text.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj ET`;
  const objects: string[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${'4 0 R '.repeat(times)}] /Count ${times} >>`;
  objects[3] = HELVETICA;
  objects[4] = `<< ${PAGE} /Contents 5 0 R >>`;
  objects[5] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  return assemblePdf(objects);
}

const ADLER_MOD = 65521;

/** Adler-32 (the zlib trailer) of `head` followed by `unit` repeated `times` times, without building it. */
function adler32(head: Buffer, unit: Buffer, times: number): number {
  let a = 1;
  let b = 0;
  for (const byte of head) {
    a = (a + byte) % ADLER_MOD;
    b = (b + a) % ADLER_MOD;
  }
  // One pass over `unit` from state (a, b) adds its byte sum to a, and len*a + sum((len-i)*byte_i) to b.
  let sum = 0;
  let weighted = 0;
  unit.forEach((byte, i) => {
    sum = (sum + byte) % ADLER_MOD;
    weighted = (weighted + (unit.length - i) * byte) % ADLER_MOD;
  });
  for (let i = 0; i < times; i++) {
    b = (b + ((unit.length % ADLER_MOD) * a) % ADLER_MOD + weighted) % ADLER_MOD;
    a = (a + sum) % ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * A valid zlib stream of `head` then `unit` repeated `times` times, made in time and memory
 * proportional to its compressed size: `unit` is deflated once with a full flush (no back
 * references across it), and that block is repeated. How decompression bombs are built.
 */
export function repeatedFlate(head: string, unit: string, times: number): Buffer {
  const headBytes = Buffer.from(head, 'latin1');
  const unitBytes = Buffer.from(unit, 'latin1');
  const first = deflateRawSync(headBytes, { finishFlush: constants.Z_FULL_FLUSH });
  const block = deflateRawSync(unitBytes, { finishFlush: constants.Z_FULL_FLUSH, level: 9 });
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler32(headBytes, unitBytes, times));
  // 78 DA: zlib header, best compression; 03 00: an empty final fixed-Huffman block.
  return Buffer.concat([Buffer.from([0x78, 0xda]), first, ...Array.from({ length: times }, () => block), Buffer.from([0x03, 0x00]), trailer]);
}

/**
 * A PDF whose content stream (FlateDecode) decodes to `head` followed by `unit` repeated `times`
 * times: a PDF bomb when `times` is large (e.g. a megabyte of spaces 1,200 times, or tens of
 * megabytes of text operators). With `pages` > 1 every page draws that one stream.
 */
export function flateBombPdf(head: string, unit: string, times: number, pages = 1): Buffer {
  const content = repeatedFlate(head, unit, times);
  const pageIds = Array.from({ length: pages }, (_, i) => 5 + i);
  return assemblePdf([
    '',
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages} >>`,
    HELVETICA,
    Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
    ...pageIds.map(() => `<< ${PAGE} /Contents 4 0 R >>`),
  ]);
}

/**
 * A one-page PDF whose content stream says FlateDecode but is cut inside its first deflate block:
 * pdf.js fails on it ("Bad encoding in flate stream"). (Bytes after a complete block, or a wrong
 * checksum, it reads as far as they go.)
 */
export function corruptFlatePdf(): Buffer {
  const text = Buffer.from('BT /F1 11 Tf 72 700 Td (Readable start of the page.) Tj ET\n'.repeat(40), 'latin1');
  const content = deflateSync(text).subarray(0, 20);
  return assemblePdf([
    '',
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    HELVETICA,
    `<< ${PAGE} /Contents 5 0 R >>`,
    Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
  ]);
}

/**
 * A PDF whose page tree loops: the root Pages node lists itself among its kids ('self'), or a
 * child Pages node lists the root ('cycle'). One real page hangs off the root; /Count claims more.
 */
export function selfReferencingPageTreePdf(loop: 'self' | 'cycle' = 'self'): Buffer {
  const stream = 'BT /F1 11 Tf 72 700 Td (The only real page.) Tj ET';
  return assemblePdf([
    '',
    '<< /Type /Catalog /Pages 2 0 R >>',
    loop === 'self' ? '<< /Type /Pages /Kids [4 0 R 2 0 R] /Count 3 >>' : '<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 3 >>',
    HELVETICA,
    `<< ${PAGE} /Contents 5 0 R >>`,
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 2 >>',
  ]);
}

export interface PlacedImage {
  /** One byte a pixel (0 black) for 8 bits a component, rows packed to bytes for 1. */
  pixels: Buffer;
  width: number;
  height: number;
  bitsPerComponent: 1 | 8;
  /** Opacity, one byte a pixel (a soft mask). */
  softMask?: Buffer;
  /** The `cm` placing the image's unit square on the page. */
  matrix: number[];
  mediaBox: [number, number];
  /** The page's /Rotate. */
  rotate?: number;
  /** Content drawn after the image (a line, a box). */
  extra?: string;
}

/** A one-page PDF painting one DeviceGray image XObject where `matrix` puts it: a scan, as scanners write them. */
export function imagePdf(image: PlacedImage): Buffer {
  const stream = (dict: string, data: Buffer) => Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
  const content = `q ${image.matrix.join(' ')} cm /Im1 Do Q ${image.extra ?? ''}`;
  const size = `/Width ${image.width} /Height ${image.height} /ColorSpace /DeviceGray`;
  return assemblePdf([
    '',
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${image.mediaBox.join(' ')}] /Rotate ${image.rotate ?? 0} /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>`,
    stream('', Buffer.from(content, 'latin1')),
    stream(`/Type /XObject /Subtype /Image ${size} /BitsPerComponent ${image.bitsPerComponent}${image.softMask ? ' /SMask 6 0 R' : ''}`, image.pixels),
    ...(image.softMask ? [stream(`/Type /XObject /Subtype /Image ${size} /BitsPerComponent 8`, image.softMask)] : []),
  ]);
}

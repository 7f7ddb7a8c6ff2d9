import { describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_DOCUMENT_BYTES, parseDocument } from '../src/parse-document.js';
import { PAGE_BREAK } from '../src/types.js';
import { failure } from './document-failure.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = (relative: string): Buffer => readFileSync(path.resolve(repoRoot, '../shared/corpus/docs', relative));

describe('parseDocument', () => {
  it('refuses files over 50 MB before looking at them', async () => {
    const error = await failure(parseDocument(Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x61), { declaredType: 'txt', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', details: ['file is larger than 50 MB'] });
  });

  it('refuses unsupported kinds with a detail naming what was found', async () => {
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00', 'latin1');
    const error = await failure(parseDocument(gif, { declaredType: 'png', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', message: 'Unsupported file type', details: ['detected: a GIF image'] });
  });

  it('goes by the bytes, not the declared type', async () => {
    const result = await parseDocument(corpus('docx/mammoth-tables.docx'), { declaredType: 'pdf', output: 'plain' });
    expect(result.kind).toBe('docx');
  });

  it('tells the caller the detected kind before extracting, so that a failure can report it', async () => {
    const docx = corpus('docx/mammoth-tables.docx');
    const detected: string[] = [];
    const error = await failure(parseDocument(docx.subarray(0, docx.length - 100), { declaredType: 'pdf', output: 'plain', onKindDetected: (kind) => detected.push(kind) }));
    expect(error.code).toBe('400-001');
    expect(detected).toEqual(['docx']);
  });

  it('joins pages with the page-break marker after trimming each page end', async () => {
    const progress = jest.fn();
    const result = await parseDocument(Buffer.from('one  \n\n\ftwo\t\n\fthree\n'), { declaredType: 'txt', output: 'plain', onProgress: progress });
    expect(result).toEqual({ kind: 'txt', text: ['one', 'two', 'three'].join(PAGE_BREAK), pages: 3, notes: ['decoded as UTF-8'], ocrPages: 0, encoding: 'utf-8' });
    expect(PAGE_BREAK).toBe('\n\n=== Page Break ===\n\n');
    expect(progress).toHaveBeenLastCalledWith(3, 3);
  });

  it('reports a spent time budget as a processing error', async () => {
    const signal = AbortSignal.abort(new Error('time budget of 60 s spent'));
    const error = await failure(parseDocument(corpus('docx/mammoth-tables.docx'), { output: 'plain', signal }));
    expect(error).toMatchObject({ code: '500-001', message: 'Processing error' });
    expect(error.details[0]).toMatch(/docx file was stopped: time budget of 60 s spent/);
  });
});

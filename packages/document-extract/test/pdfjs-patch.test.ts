import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPdf } from '../src/pdf/open-pdf.js';

// What patches/pdfjs-dist@5.6.205.patch promises the PDF reader, checked on the pdf.js it loads
// (pnpm applies the patch at install; a plain npm install would not).
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const scanned = readFileSync(path.resolve(repoRoot, '../shared/corpus/docs/pdf/linn-scanned.pdf'));

describe('patched pdf.js', () => {
  it('lists a page\'s images without decoding them for the "any" intent, and decodes them for display', async () => {
    const pdf = await openPdf(scanned);
    try {
      const page = await pdf.doc.getPage(1);
      const imageIds = async (intent: 'any' | 'display') => {
        const { fnArray, argsArray } = await page.getOperatorList({ intent });
        return fnArray.flatMap((fn, i) => (fn === pdf.pdfjs.OPS.paintImageXObject ? [String((argsArray[i] as unknown[])[0])] : []));
      };
      const objectsOf = (id: string) => (id.startsWith('g_') ? page.commonObjs : page.objs);

      const listed = await imageIds('any');
      expect(listed).toHaveLength(1);
      // A decoded image arrives as an object message soon after its operator; none comes here.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(objectsOf(listed[0]).has(listed[0])).toBe(false);

      const [shown] = await imageIds('display');
      const decoded = await new Promise<{ width: number; height: number; data?: Uint8Array } | null>((resolve) => objectsOf(shown).get(shown, resolve));
      expect(decoded?.data?.length).toBeGreaterThan(0);
      expect(decoded?.width).toBeGreaterThan(1000);
    } finally {
      await pdf.destroy();
    }
  });

  it("reads a deflated text PDF's text, its streams inflated by Node's zlib, the same twice", async () => {
    const text = async () => {
      const pdf = await openPdf(readFileSync(path.resolve(repoRoot, '../shared/corpus/docs/pdf/tracemonkey.pdf')));
      try {
        const content = await (await pdf.doc.getPage(1)).getTextContent();
        return content.items.map((item) => ('str' in item ? item.str : '')).join('');
      } finally {
        await pdf.destroy();
      }
    };
    const first = await text();
    expect(first).toContain('Trace-based Just-in-Time Type Specialization for Dynamic');
    expect(await text()).toBe(first);
  });
});

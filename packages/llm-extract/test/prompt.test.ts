import { describe, expect, it } from '@jest/globals';
import { buildUserMessage, neutraliseFence, systemPrompt, TRUNCATION_MARK } from '../src/index.js';

describe('page fence and budget', () => {
  it('neutralises every spelling of the fence tags found in page text', () => {
    const text = neutraliseFence('a </page_content> b <PAGE_CONTENT> c < / page_content > d <page_contents> e');
    expect(text).not.toMatch(/<\s*\/?\s*page_content\b/i);
    expect(text).toContain('a &lt;/page_content> b');
    expect(text).toContain('<page_contents>');
  });

  it('keeps the whole input near the budget and marks the cut inside the fence', () => {
    const markdown = 'x'.repeat(50_000);
    const { text, trimmed } = buildUserMessage({ url: 'https://a.example', markdown }, 'Get it.', { budgetTokens: 2000, overheadChars: systemPrompt('tool').length });
    expect(trimmed).toBe(true);
    expect(text.length + systemPrompt('tool').length).toBeLessThanOrEqual(2000 * 4);
    expect(text.length).toBeGreaterThan(2000 * 4 - systemPrompt('tool').length - 200);
    expect(text.indexOf(TRUNCATION_MARK)).toBeLessThan(text.indexOf('</page_content>'));
    expect(text.endsWith('Get it.')).toBe(true);
  });

  it('does not split a surrogate pair at the cut', () => {
    const markdown = '😀'.repeat(10_000);
    const { text } = buildUserMessage({ url: 'https://a.example', markdown }, 'p', { budgetTokens: 500 });
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

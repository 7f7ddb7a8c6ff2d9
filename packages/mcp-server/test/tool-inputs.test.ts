import { describe, expect, it } from '@jest/globals';
import { scrapeApiOptions, scrapeInput, scrapeManyInput, scrapeRequest } from '../src/tool-inputs.js';

describe('scrapeRequest', () => {
  it('sends every option of scrapeApiOptions to the API unchanged: a new API option is one line there', () => {
    for (const name of Object.keys(scrapeApiOptions)) {
      const sentinel = { option: name };
      expect(scrapeRequest('https://example.com/', { format: 'markdown', [name]: sentinel })).toMatchObject({ [name]: sentinel });
    }
    // Both scrape tools accept exactly those options.
    for (const schema of [scrapeInput, scrapeManyInput]) expect(Object.keys(schema.shape)).toEqual(expect.arrayContaining(Object.keys(scrapeApiOptions)));
  });

  it('asks for markdown unless text is wanted, LLM mode when there is a prompt, and sends no option left out', () => {
    expect(scrapeRequest('https://example.com/', { format: 'markdown' })).toEqual({ url: 'https://example.com/', output_type: 'markdown' });
    expect(scrapeRequest('https://example.com/', { format: 'text', use_cache: true })).toEqual({ url: 'https://example.com/', output_type: 'plaintext', use_cache: true });
    expect(scrapeRequest('https://example.com/', { format: 'markdown', prompt: 'prices', schema: { type: 'object' } })).toEqual({
      url: 'https://example.com/',
      output_type: 'markdown',
      prompt: 'prices',
      schema: { type: 'object' },
      use_llm: true,
    });
  });
});

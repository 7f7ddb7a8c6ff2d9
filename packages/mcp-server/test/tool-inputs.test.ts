import { describe, expect, it } from '@jest/globals';
import { crawlInput, crawlRequest, mapInput, mapRequest, scrapeApiOptions, scrapeInput, scrapeManyInput, scrapeRequest, siteScope } from '../src/tool-inputs.js';

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

describe('crawlRequest and mapRequest', () => {
  it('send the scope, every per-page option but the cache lookup, and what the presentation implies', () => {
    const input = crawlInput.parse({ url: 'https://docs.example.com/', include_paths: ['^/docs/'], sitemap: 'skip', max_depth: 2, render_js: false, prompt: 'titles', format: 'text', max_length: 5_000 });
    expect(crawlRequest(input)).toEqual({ url: 'https://docs.example.com/', limit: 20, max_depth: 2, include_paths: ['^/docs/'], sitemap: 'skip', render_js: false, prompt: 'titles', use_llm: true, output_type: 'plaintext' });
    const map = mapInput.parse({ url: 'https://docs.example.com/' });
    for (const name of Object.keys(siteScope)) {
      const sentinel = [name];
      expect(crawlRequest({ ...input, [name]: sentinel })).toMatchObject({ [name]: sentinel });
      expect(mapRequest({ ...map, [name]: sentinel })).toMatchObject({ [name]: sentinel });
    }
    expect(Object.keys(crawlInput.shape)).toEqual(expect.arrayContaining(Object.keys(scrapeApiOptions).filter((n) => n !== 'use_cache')));
    expect(Object.keys(crawlInput.shape)).not.toContain('use_cache');
    expect(mapRequest(map)).toEqual({ url: 'https://docs.example.com/', limit: 1_000 });
  });
});

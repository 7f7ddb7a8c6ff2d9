import { describe, expect, it } from '@jest/globals';
import { CRAWL_OPTIONS, initialValues, requestBody, SCRAPE_OPTIONS } from '../ui/api-options.js';

describe('the playground request body', () => {
  it('sends only what differs from the API defaults', () => {
    const values = { ...initialValues(SCRAPE_OPTIONS), url: 'https://example.com/a' };
    expect(requestBody(SCRAPE_OPTIONS, values)).toEqual({ url: 'https://example.com/a' });
  });

  it('sends render_js true/false as JSON booleans and the millisecond fields as numbers', () => {
    const values = { ...initialValues(SCRAPE_OPTIONS), url: 'https://example.com/a', render_js: 'true', wait_for_selector: ' #app ', wait_for: '1500', timeout: '45000' };
    expect(requestBody(SCRAPE_OPTIONS, values)).toEqual({ url: 'https://example.com/a', render_js: true, wait_for_selector: '#app', wait_for: 1500, timeout: 45000 });
    expect(requestBody(SCRAPE_OPTIONS, { ...values, render_js: 'false', wait_for: '', wait_for_selector: '' })).toMatchObject({ render_js: false });
  });

  it('sends a crawl\'s path patterns as lists, one a line, and leaves out empty ones', () => {
    const values = { ...initialValues(CRAWL_OPTIONS), url: 'https://docs.example.com/', limit: '20', include_paths: ' ^/docs/ \n\n^/guide/\n', exclude_paths: '  ', sitemap: 'skip' };
    expect(requestBody(CRAWL_OPTIONS, values)).toEqual({ url: 'https://docs.example.com/', limit: 20, include_paths: ['^/docs/', '^/guide/'], sitemap: 'skip' });
  });
});

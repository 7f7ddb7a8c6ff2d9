export * from './scrape-view.js';
export * from './scrape-v1-view.js';
export * from './parse-view.js';
export * from './account-request-view.js';
export * from './crawl-view.js';

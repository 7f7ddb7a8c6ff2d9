export * from './contract.js';
export * from './factory.js';
export * from './scrape.js';
export * from './scrape-v1.js';
export * from './parse.js';
export * from './webhook.js';
export * from './bot.js';
export * from './retention.js';

export * from './config.js';
export * from './parse-pool.js';
export * from './service.js';

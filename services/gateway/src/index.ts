export * from './app.js';
export * from './config.js';
export * from './deps.js';
export * from './service.js';
export * from './submit.js';

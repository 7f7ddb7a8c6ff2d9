export * from './normalize-url.js';
export * from './scope.js';
export * from './robots.js';
export * from './sitemaps.js';
export * from './host-throttle.js';
export * from './user-agent.js';

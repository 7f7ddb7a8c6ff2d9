export * from './job-failure.js';
export * from './registry.js';
export * from './recorded-job.js';
export * from './account-job-cap.js';
export * from './crash-isolation.js';
export * from './worker-service.js';
export * from './defer-job.js';

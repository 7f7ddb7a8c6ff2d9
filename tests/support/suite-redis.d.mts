/** Types of suite-redis.mjs (plain JavaScript: jest's globalSetup loads it without a transform). */
export function freePort(): Promise<number>;
export function answersPing(port: number): Promise<boolean>;
export function startSuiteRedis(): Promise<{ url: string; stop: () => Promise<void> }>;
export function setup(): Promise<void>;
export function teardown(): Promise<void>;

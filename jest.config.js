// ESM-only packages in jsdom's dependency tree (jsdom itself is CommonJS).
const ESM_REQUIRED_BY_CJS = [
  '@asamuzakjp[/+]css-color',
  '@asamuzakjp[/+]generational-cache',
  '@csstools[/+]css-calc',
  '@csstools[/+]css-color-parser',
  '@csstools[/+]color-helpers',
  '@csstools[/+]css-parser-algorithms',
  '@csstools[/+]css-tokenizer',
  '@asamuzakjp[/+]dom-selector',
  'css-tree',
  '@bramus[/+]specificity',
  '@exodus[/+]bytes',
  'lru-cache',
  'parse5',
  // entities 9 is ESM-only and reached through parse5; linkedom's own (dual) entities is left alone.
  'entities@9[^/]*/node_modules/entities',
  'tough-cookie',
];

// ts-jest in ESM mode, transpile-only: `tsc --noEmit` (run first by `pnpm test`) does the type checking.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
    // jsdom (CommonJS) require()s ESM-only packages. Node 20.19+ does that natively, but jest's
    // module loader does not, so those packages are compiled to CommonJS for tests only.
    [`(${ESM_REQUIRED_BY_CJS.join('|')}).+\\.m?js$`]: '<rootDir>/tests/support/esm-to-cjs-transform.cjs',
  },
  // The lookbehind keeps a package's own folder (`.pnpm/entities@9…/node_modules/entities`) transformable.
  transformIgnorePatterns: [`(?<!\\.pnpm/entities@9[^/]*)/node_modules/(?!(\\.pnpm/)?(${ESM_REQUIRED_BY_CJS.join('|')}))`],
  testMatch: ['<rootDir>/packages/*/test/**/*.test.ts', '<rootDir>/services/*/test/**/*.test.ts', '<rootDir>/tests/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // The suite's own redis-server, unless GLEANER_TEST_REDIS_URL names one (tests/support/redis.ts).
  globalSetup: '<rootDir>/tests/support/suite-redis-setup.mjs',
  globalTeardown: '<rootDir>/tests/support/suite-redis-teardown.mjs',
  // Services' log lines and leptonica's messages are held back (GLEANER_TEST_LOGS=1 shows them).
  setupFiles: ['<rootDir>/tests/support/quiet-output.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};

import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/** The console's three files, built from `ui/` (Preact) by esbuild when first asked for. */
export interface ConsoleAssets {
  html: string;
  script: string;
  stylesheet: string;
  /** Hash of script and stylesheet: their URLs carry it, so a new build is never read from a cache. */
  version: string;
}

/**
 * Strict: scripts and styles from this origin only (no inline script or style, no eval), requests
 * to this origin only, nothing framed, no forms posted elsewhere. Trusted Types with no policy
 * make any HTML string assigned to the DOM (innerHTML and the like) throw: the console shows
 * scraped content as text, and the browser enforces that it cannot do otherwise.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export const CONSOLE_SCRIPT_PATH = '/console/app.js';
export const CONSOLE_STYLESHEET_PATH = '/console/app.css';

function page(version: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Gleaner console</title>
<link rel="stylesheet" href="${CONSOLE_STYLESHEET_PATH}?v=${version}">
<script type="module" src="${CONSOLE_SCRIPT_PATH}?v=${version}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The Gleaner console needs JavaScript.</noscript>
</body>
</html>
`;
}

/**
 * Bundles `ui/main.tsx` (Preact, its CSS) with esbuild. `buildSync` runs esbuild once as a child
 * process and leaves nothing running, where the async API keeps esbuild's service (~13 MB) alive
 * or, stopped, would cut short another build of the process (run.mjs's, a thread pool's). It
 * blocks for the build's time (~0.1-0.3 s), once per process.
 */
export async function buildConsoleAssets(): Promise<ConsoleAssets> {
  const esbuild = await import('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL('../ui/main.tsx', import.meta.url))],
    bundle: true,
    write: false,
    outdir: '/console-assets',
    format: 'esm',
    platform: 'browser',
    target: ['chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const script = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text;
  const stylesheet = result.outputFiles.find((f) => f.path.endsWith('.css'))?.text;
  if (script === undefined || stylesheet === undefined) throw new Error('console build gave no script or stylesheet');
  const version = createHash('sha256').update(script).update(stylesheet).digest('hex').slice(0, 12);
  return { html: page(version), script, stylesheet, version };
}

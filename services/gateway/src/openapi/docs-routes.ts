import { readFileSync } from 'node:fs';
import express, { type Router } from 'express';
import { renderDocsPage } from './docs-page.js';
import { openApiDocument } from './document.js';

const STYLESHEET_PATH = '/docs/style.css';

/**
 * `GET /openapi.json`, `GET /docs` and its stylesheet; public, like /healthz. The page is
 * rendered once: the document is fixed for the life of the process.
 */
export function docsRoutes(): Router {
  const page = renderDocsPage(openApiDocument, STYLESHEET_PATH);
  const stylesheet = readFileSync(new URL('./docs-style.css', import.meta.url), 'utf8');
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
  router.get(STYLESHEET_PATH, (_req, res) => {
    res.type('css').set('Cache-Control', 'public, max-age=3600').send(stylesheet);
  });
  return router;
}

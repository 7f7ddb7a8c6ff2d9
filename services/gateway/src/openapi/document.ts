import { accountDoc } from './account-doc.js';
import { botWebhookDoc } from './bot-webhook-doc.js';
import { commonHeaders, type DocSection } from './doc-builders.js';
import { documentsDoc } from './documents-doc.js';
import type { OpenApiDocument } from './openapi-types.js';
import { operationsDoc } from './operations-doc.js';
import { v1ScraperDoc } from './v1-scraper-doc.js';
import { siteJobsDoc } from './site-jobs-doc.js';
import { webScraperDoc } from './web-scraper-doc.js';

/** Order of the sections is the order of the reference page. */
const sections: DocSection[] = [webScraperDoc, siteJobsDoc, v1ScraperDoc, documentsDoc, botWebhookDoc, accountDoc, operationsDoc];

const description = `Turns web pages and documents into clean text, and feeds chat bots.

Slow work answers 202 after 20 s; poll its status endpoint or receive a webhook. Bodies are JSON objects of at most 100 KB (400 when not JSON, 413 when larger). Every response carries X-Request-ID. Rate limit: 60 requests per minute per account (all its keys together) by default (429 with Retry-After and RateLimit-* headers). Each family answers errors in its own format: see ScraperError, V1Error, ParserError and BotError.

Paths match with and without a trailing slash.`;

/** The gateway's API contract, served at /openapi.json and rendered at /docs. tests/openapi.test.ts keeps it and the routes in step. */
export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Gleaner API',
    version: '1.0.0',
    summary: 'Web pages and documents to clean text.',
    description,
  },
  servers: [{ url: '/', description: 'This gateway' }],
  tags: [
    { name: 'Web scraper', description: 'URL in; text or markdown, metadata, links and images out; optional language-model extraction; 15-day cache. Whole sites: crawl, batch and map.' },
    { name: 'Deprecated v1 scraper', description: 'CSS or XPath selector in; matched HTML and text, or language-model JSON, out.' },
    { name: 'Document parser', description: 'PDF, Word, Excel, PowerPoint, OpenDocument, EPUB, HTML, images (OCR) and text files to plain text or markdown.' },
    { name: 'Bot webhook', description: 'Find or create a chat-bot user by phone, set custom fields, send a flow.' },
    { name: 'Account', description: 'Scope account: usage (totals and per day), API keys, language-model keys, webhook secret and subscriptions, recent requests and their webhook deliveries (what the console at /console shows). Errors in the scraper format.' },
    { name: 'Operations', description: 'Health, readiness, metrics and this documentation; no authentication.' },
  ],
  paths: Object.assign({}, ...sections.map((s) => s.paths)),
  components: {
    schemas: Object.assign({}, ...sections.map((s) => s.schemas)),
    headers: commonHeaders,
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API key created by the operator (pnpm gleaner keys create); scopes scrape, parse, account.' },
      bearer: { type: 'http', scheme: 'bearer', description: "The bot platform's access token (bot webhook only); passed through, never stored." },
    },
  },
};

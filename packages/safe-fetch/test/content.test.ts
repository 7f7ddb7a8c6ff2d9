import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import iconv from 'iconv-lite';
import { FetchError, fetchBinary, fetchPage, type FetchPageOptions } from '../src/index.js';
import { serve, type LocalServer } from './support/local-server.js';

const open: FetchPageOptions = { allowPrivateNetworks: true };
const RUSSIAN = 'Съешь же ещё этих мягких французских булок, да выпей чаю. Москва — столица России.';
const FRENCH = 'Ceci est une phrase française très ordinaire, écrite à la main près du château.';
let main: LocalServer;
let seen: http.IncomingHttpHeaders = {};

/** A route answering `body` with `headers` (status 200 unless given). */
function answer(body: string | Buffer, headers: http.OutgoingHttpHeaders = {}, status = 200) {
  return (_q: http.IncomingMessage, s: http.ServerResponse) => s.writeHead(status, headers).end(body);
}

const html = (inner: string, head = '') => `<!doctype html><html><head>${head}<title>t</title></head><body><p>${inner}</p></body></html>`;
const encoded = (text: string, charset: string) => iconv.encode(text, charset);
/** `<script>alert(1)</script>` in UTF-7: only a decoder that honours UTF-7 makes it markup. */
const UTF7_PAGE = '<html><body><p>Hello</p>+ADw-script+AD4-alert(1)+ADw-/script+AD4-</body></html>';

beforeAll(async () => {
  main = await serve('127.0.0.1', {
    '/page': (q, s) => {
      seen = q.headers;
      s.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html('Grüße'));
    },
    '/xhtml': answer('<html xmlns="http://www.w3.org/1999/xhtml"><body><p>x</p></body></html>', { 'content-type': 'application/xhtml+xml' }),
    '/text': answer('plain text body', { 'content-type': 'text/plain' }),
    '/pdf': answer('%PDF-1.4 fake', { 'content-type': 'application/pdf' }),
    '/json': answer('{"a":1}', { 'content-type': 'application/json' }),
    '/untyped-html': answer('<div><p>no content type here</p></div>'),
    '/untyped-text': answer('just words, no markup'),
    '/untyped-pdf': answer('%PDF-1.7\n%binary'),
    '/untyped-binary': answer(Buffer.from([0x01, 0x00, 0x02, 0x03, 0x00])),
    // Charsets
    '/cp1251-header': answer(encoded(html(RUSSIAN), 'win1251'), { 'content-type': 'text/html; charset=windows-1251' }),
    '/latin1-header': answer(encoded(html(FRENCH), 'latin1'), { 'content-type': 'text/html; charset=ISO-8859-1' }),
    '/cp1251-meta': answer(encoded(html(RUSSIAN, '<meta charset="windows-1251">'), 'win1251'), { 'content-type': 'text/html' }),
    '/latin1-http-equiv': answer(encoded(html(FRENCH, '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'), 'latin1'), { 'content-type': 'text/html' }),
    '/utf8-bom': answer(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html(RUSSIAN))]), { 'content-type': 'text/html; charset=windows-1251' }),
    '/utf16-bom': answer(Buffer.concat([Buffer.from([0xff, 0xfe]), encoded(html(FRENCH), 'utf-16le')]), { 'content-type': 'text/html' }),
    '/cp1251-detect': answer(encoded(html(`${RUSSIAN} ${RUSSIAN}`), 'win1251'), { 'content-type': 'text/html' }),
    '/latin1-detect': answer(encoded(html(`${FRENCH} ${FRENCH}`), 'latin1'), { 'content-type': 'text/html' }),
    '/cp1251-text-detect': answer(encoded(`${RUSSIAN}\n${RUSSIAN}\n`, 'win1251'), { 'content-type': 'text/plain' }),
    '/utf8-undeclared': answer(html(RUSSIAN), { 'content-type': 'text/html' }),
    // Labels the WHATWG Encoding Standard does not list, or lists as "replacement" (issue 24).
    '/utf7-header': answer(UTF7_PAGE, { 'content-type': 'text/html; charset=utf-7' }),
    '/utf7-meta': answer(`<meta charset="utf-7">${UTF7_PAGE}`, { 'content-type': 'text/html' }),
    '/utf7-then-cp1251-meta': answer(encoded(html(RUSSIAN, '<meta charset="utf-7"><meta charset="windows-1251">'), 'win1251'), { 'content-type': 'text/html' }),
    '/iso-2022-kr-header': answer(UTF7_PAGE, { 'content-type': 'text/html; charset=iso-2022-kr' }),
    '/hz-meta': answer(`<meta http-equiv="content-type" content="text/html; charset=HZ-GB-2312">${UTF7_PAGE}`, { 'content-type': 'text/html' }),
    '/utf16-meta': answer(html(FRENCH, '<meta charset="utf-16le">'), { 'content-type': 'text/html' }),
    '/latin10-header': answer(Buffer.from([0x3c, 0x70, 0x3e, 0xa1, 0xa2, 0xaa, 0xba]), { 'content-type': 'text/html; charset=iso-8859-16' }),
    // Statuses and bot protection
    '/gone': answer('<p>gone</p>', { 'content-type': 'text/html' }, 410),
    '/broken': answer('<p>oops</p>', { 'content-type': 'text/html' }, 500),
    '/forbidden': answer('<p>no</p>', { 'content-type': 'text/html' }, 403),
    '/missing-stalled': (_q, s) => {
      s.writeHead(404, { 'content-type': 'text/html' });
      s.write('<p>not here');
    },
    '/rate-limited': answer('slow down', { 'content-type': 'text/plain', 'retry-after': '30' }, 429),
    '/cf-challenge': answer(html('Checking your browser').replace('<title>t</title>', '<title>Just a moment...</title>'), { 'content-type': 'text/html', server: 'cloudflare' }, 503),
    '/cf-block': answer('<html><head><title>Attention Required! | Cloudflare</title></head><body>Sorry, you have been blocked</body></html>', { 'content-type': 'text/html' }, 200),
    '/cf-mitigated': answer(html('interstitial'), { 'content-type': 'text/html', 'cf-mitigated': 'challenge' }),
    '/imperva': answer('<html><head><META NAME="robots" CONTENT="noindex,nofollow"></head><body><iframe id="main-iframe" src="/_Incapsula_Resource?SWUDNSAI=31&xinfo=1"></iframe></body></html>', { 'content-type': 'text/html' }),
    '/datadome': answer("<html><head><title>site.com</title></head><body><script>var dd={'rt':'c','cid':'x','host':'geo.captcha-delivery.com'}</script></body></html>", { 'content-type': 'text/html' }, 200),
    '/akamai': answer('<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY>Reference&#32;&#35;18&#46;1<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18</BODY></HTML>', { 'content-type': 'text/html' }, 200),
    // Protected but served: vendor scripts on a real article are not a challenge.
    '/protected-article': answer(
      html(`${'A real article paragraph. '.repeat(1500)}`, '<script src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e6fffd425f7e032f3"></script><script src="https://js.datadome.co/tags.js"></script><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>'),
      { 'content-type': 'text/html' },
    ),
    // Documents
    '/files/report%202024.pdf': answer('%PDF-1.4 report', { 'content-type': 'application/pdf' }),
    '/download': (q, s) => {
      const variant = new URL(q.url!, 'http://x').searchParams.get('v');
      const dispositions: Record<string, string> = {
        ext: "attachment; filename=\"fallback.pdf\"; filename*=UTF-8''%E2%82%AC%20rates.pdf",
        plain: 'attachment; filename="annual report.docx"',
        traversal: 'attachment; filename="../../etc/passwd"',
      };
      s.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': dispositions[variant ?? ''] ?? 'inline' }).end('bytes');
    },
  });
});

afterAll(async () => {
  await main?.close();
});

async function failure(p: Promise<unknown>): Promise<FetchError> {
  const outcome = await p.then(
    () => new Error('expected a failure, got a result'),
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(FetchError);
  return outcome as FetchError;
}

describe('content types', () => {
  it('returns HTML pages with the full result shape and sends browser-like headers', async () => {
    const page = await fetchPage(`${main.url}/page`, open);
    expect(page).toMatchObject({ finalUrl: `${main.url}/page`, statusCode: 200, contentType: 'text/html; charset=utf-8', charset: 'utf-8', kind: 'html', redirects: [] });
    expect(page.body).toContain('Grüße');
    expect(page.bytes).toBe(Buffer.byteLength(html('Grüße')));
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(seen['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\/\d+/);
    expect(seen.accept).toMatch(/^text\/html/);
    expect(seen['accept-encoding']).toMatch(/gzip/);
    await fetchPage(`${main.url}/page`, { ...open, userAgent: 'GleanerTest/1.0' });
    expect(seen['user-agent']).toBe('GleanerTest/1.0');
  });

  it('serves XHTML as html and text/plain as text', async () => {
    expect((await fetchPage(`${main.url}/xhtml`, open)).kind).toBe('html');
    const text = await fetchPage(`${main.url}/text`, open);
    expect([text.kind, text.body]).toEqual(['text', 'plain text body']);
  });

  it('refuses other types with a message naming the type and pointing at /documents', async () => {
    const pdf = await failure(fetchPage(`${main.url}/pdf`, open));
    expect([pdf.kind, pdf.transient]).toEqual(['unsupported_type', false]);
    expect(pdf.message).toMatch(/application\/pdf.*\/documents/);
    expect((await failure(fetchPage(`${main.url}/json`, open))).message).toContain('application/json');
  });

  it('sniffs bodies served without Content-Type', async () => {
    const sniffedHtml = await fetchPage(`${main.url}/untyped-html`, open);
    expect([sniffedHtml.kind, sniffedHtml.contentType]).toEqual(['html', 'text/html']);
    expect((await fetchPage(`${main.url}/untyped-text`, open)).kind).toBe('text');
    expect((await failure(fetchPage(`${main.url}/untyped-pdf`, open))).message).toContain('application/pdf');
    expect((await failure(fetchPage(`${main.url}/untyped-binary`, open))).kind).toBe('unsupported_type');
  });
});

describe('charsets', () => {
  it.each([
    ['/cp1251-header', RUSSIAN, 'windows-1251'],
    ['/latin1-header', FRENCH, 'windows-1252'],
    ['/cp1251-meta', RUSSIAN, 'windows-1251'],
    ['/latin1-http-equiv', FRENCH, 'windows-1252'],
    ['/utf8-bom', RUSSIAN, 'utf-8'],
    ['/utf16-bom', FRENCH, 'utf-16le'],
    ['/cp1251-detect', RUSSIAN, 'windows-1251'],
    ['/latin1-detect', FRENCH, 'windows-1252'],
    ['/cp1251-text-detect', RUSSIAN, 'windows-1251'],
    ['/utf8-undeclared', RUSSIAN, 'utf-8'],
  ])('%s decodes to the original text', async (route, expected, charset) => {
    const page = await fetchPage(`${main.url}${route}`, open);
    expect(page.body).toContain(expected);
    expect(page.body).not.toContain('\ufffd');
    expect(page.charset).toBe(charset);
  });

  it.each(['/utf7-header', '/utf7-meta'])('%s: UTF-7 is not honoured, the page reads as its bytes (no <script>)', async (route) => {
    const page = await fetchPage(`${main.url}${route}`, open);
    expect(page.charset).toBe('utf-8');
    expect(page.body).toContain('+ADw-script+AD4-alert(1)');
    expect(page.body).not.toMatch(/<script/i);
  });

  it('a meta naming no encoding is passed over for the next one, as HTML\'s prescan does', async () => {
    const page = await fetchPage(`${main.url}/utf7-then-cp1251-meta`, open);
    expect([page.charset, page.body.includes(RUSSIAN)]).toEqual(['windows-1251', true]);
  });

  it.each(['/iso-2022-kr-header', '/hz-meta'])('%s: a "replacement" label gives one U+FFFD, as a browser shows it', async (route) => {
    const page = await fetchPage(`${main.url}${route}`, open);
    expect([page.charset, page.body]).toEqual(['replacement', '\ufffd']);
  });

  it('UTF-16 named by a meta means UTF-8; encodings Node\'s ICU lacks (ISO-8859-16) still decode', async () => {
    const utf16 = await fetchPage(`${main.url}/utf16-meta`, open);
    expect([utf16.charset, utf16.body.includes(FRENCH)]).toEqual(['utf-8', true]);
    const latin10 = await fetchPage(`${main.url}/latin10-header`, open);
    expect([latin10.charset, latin10.body]).toEqual(['iso-8859-16', '<p>ĄąȘș']);
  });
});

describe('statuses and bot protection', () => {
  it('fails 4xx/5xx with http_status, the code, and transience for 5xx', async () => {
    const missing = await failure(fetchPage(`${main.url}/nope`, open));
    expect([missing.kind, missing.statusCode, missing.message, missing.transient]).toEqual(['http_status', 404, 'target answered HTTP 404', false]);
    expect((await failure(fetchPage(`${main.url}/gone`, open))).message).toBe('target answered HTTP 410');
    // The status is known before the body; a stalled error body does not turn it into a timeout.
    expect((await failure(fetchPage(`${main.url}/missing-stalled`, { ...open, deadlineMs: 300 }))).statusCode).toBe(404);
    const broken = await failure(fetchPage(`${main.url}/broken`, open));
    expect([broken.kind, broken.statusCode, broken.transient]).toEqual(['http_status', 500, true]);
  });

  it.each([
    ['/forbidden', 403],
    ['/rate-limited', 429],
    ['/cf-challenge', 503],
    ['/cf-block', 200],
    ['/cf-mitigated', 200],
    ['/imperva', 200],
    ['/datadome', 200],
    ['/akamai', 200],
  ])('%s is reported as blocked', async (route, status) => {
    const err = await failure(fetchPage(`${main.url}${route}`, open));
    expect([err.kind, err.statusCode, err.message, err.transient]).toEqual(['blocked', status, `blocked by the target site (HTTP ${status})`, false]);
  });

  it('does not mistake a protected but served article for a challenge', async () => {
    const page = await fetchPage(`${main.url}/protected-article`, open);
    expect(page.body).toContain('A real article paragraph.');
  });
});

describe('fetchBinary', () => {
  it('accepts any type, returns bytes and a file name from the URL path', async () => {
    const file = await fetchBinary(`${main.url}/files/report%202024.pdf`, open);
    expect(file).toMatchObject({ statusCode: 200, contentType: 'application/pdf', fileName: 'report 2024.pdf', finalUrl: `${main.url}/files/report%202024.pdf` });
    expect(file.bytes.toString()).toBe('%PDF-1.4 report');
  });

  it.each([
    ['ext', '€ rates.pdf'],
    ['plain', 'annual report.docx'],
    ['traversal', 'passwd'],
    ['none', 'download'],
  ])('takes the file name from Content-Disposition (%s)', async (variant, name) => {
    expect((await fetchBinary(`${main.url}/download?v=${variant}`, open)).fileName).toBe(name);
  });

  it('shares the status handling of fetchPage', async () => {
    expect((await failure(fetchBinary(`${main.url}/nope`, open))).statusCode).toBe(404);
    expect((await failure(fetchBinary(`${main.url}/forbidden`, open))).kind).toBe('blocked');
  });
});

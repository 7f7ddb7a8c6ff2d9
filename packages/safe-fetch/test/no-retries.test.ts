import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FetchError, fetchBinary, fetchPage, type FetchPageOptions } from '../src/index.js';
import { serve, type LocalServer } from './support/local-server.js';
import { settledWithin } from '../../../tests/support/processes.js';

/**
 * No got-level retries (issue 3: BullMQ owns retries). got retries a GET on 503 and on a reset
 * connection by default (twice, after about 1 s and 2 s); here each fetch reaches the target
 * exactly once, and fails at once with the first answer.
 */
const open: FetchPageOptions = { allowPrivateNetworks: true };
const hits: Record<string, number> = {};
let main: LocalServer;

/** Counts requests per route before answering. */
function counted(route: string, handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> {
  return {
    [route]: (req, res) => {
      hits[route] = (hits[route] ?? 0) + 1;
      handler(req, res);
    },
  };
}

beforeAll(async () => {
  main = await serve('127.0.0.1', {
    // Plain text, so that it cannot be read as a bot-protection challenge (those are 'blocked').
    ...counted('/unavailable', (_q, s) => s.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance')),
    // The connection is dropped before any answer: got would see ECONNRESET ("socket hang up").
    ...counted('/drop', (q) => q.socket.destroy()),
  });
});

afterAll(async () => {
  await main?.close();
});

/** The fetch's FetchError; a fetch still busy after 8 s (a retry loop that lost its caller) fails the test. */
async function failure(p: Promise<unknown>): Promise<FetchError> {
  const outcome = await settledWithin(
    p.then(
      () => new Error('expected a failure, got a result'),
      (err: unknown) => err,
    ),
    8_000,
    new Error('no answer within 8 s'),
  );
  expect(outcome).toBeInstanceOf(FetchError);
  return outcome as FetchError;
}

/** A retry would come at least a second later; wait a little to see that none is on its way. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

describe('no got-level retries', () => {
  it('a 503 is requested once per fetch and fails at once as a transient http_status', async () => {
    const before = { hits: hits['/unavailable'] ?? 0, connections: main.connections };
    const started = Date.now();
    const err = await failure(fetchPage(`${main.url}/unavailable`, open));
    expect(Date.now() - started).toBeLessThan(900);
    expect([err.kind, err.statusCode, err.message, err.transient]).toEqual(['http_status', 503, 'target answered HTTP 503', true]);
    await settle();
    expect(hits['/unavailable'] - before.hits).toBe(1);
    expect(main.connections - before.connections).toBe(1);

    const binary = await failure(fetchBinary(`${main.url}/unavailable`, open));
    expect([binary.kind, binary.statusCode]).toEqual(['http_status', 503]);
    await settle();
    expect(hits['/unavailable'] - before.hits).toBe(2);
  });

  it('a dropped connection is tried once per fetch and fails at once as a transient network error', async () => {
    const before = { hits: hits['/drop'] ?? 0, connections: main.connections };
    const started = Date.now();
    const err = await failure(fetchPage(`${main.url}/drop`, open));
    expect(Date.now() - started).toBeLessThan(900);
    expect([err.kind, err.transient]).toEqual(['network', true]);
    expect(err.message).toMatch(/^network error: /);
    await settle();
    expect(hits['/drop'] - before.hits).toBe(1);
    expect(main.connections - before.connections).toBe(1);

    expect((await failure(fetchBinary(`${main.url}/drop`, open))).kind).toBe('network');
    await settle();
    expect(hits['/drop'] - before.hits).toBe(2);
    expect(main.connections - before.connections).toBe(2);
  });
});

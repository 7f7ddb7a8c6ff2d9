import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedis, newRequestId, waitForRedis, type RedisClient } from '@gleaner/platform';
import { createStores, type Stores } from '../src/index.js';
import { DisposableRedis, freePort } from '../../../tests/support/redis-server.js';

/**
 * A write whose reply a closed connection lost is sent again by ioredis once it reconnects (its
 * `autoResendUnfulfilledCommands`): a Sentinel failover does that when the master dies after it
 * ran the write and passed it to the replica that becomes master (the way found to the one
 * unexpected answer CI saw in the redis-failover test). The gateway's creating writes, and its
 * count of the request, must take the second run for what it is. Here a proxy between the
 * gateway's kind of client (the producer role) and a Redis of the test's own lets the first
 * command naming a given key through, swallows its reply and closes the connection; ioredis
 * reconnects through it and sends the command again.
 */
interface LossyProxy {
  url: string;
  /** The next command whose bytes contain `marker` runs, and its reply is lost with the connection. */
  loseReplyTo(marker: string): void;
  /** How many replies were lost so far. */
  lost(): number;
  close(): Promise<void>;
}

async function startLossyProxy(target: number): Promise<LossyProxy> {
  let marker: string | null = null;
  let lost = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    let swallowing = false;
    client.on('data', (chunk) => {
      if (marker && chunk.includes(marker)) {
        marker = null;
        swallowing = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!swallowing) return void client.write(chunk);
      // The command ran (its reply is here): the client never hears of it.
      lost++;
      client.destroy();
      upstream.destroy();
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${port}/0`,
    loseReplyTo: (m) => {
      marker = m;
    },
    lost: () => lost,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('a creating write sent again after its reply was lost', () => {
  const prefix = 'resent';
  let redis: DisposableRedis;
  let proxy: LossyProxy;
  let client: RedisClient;
  let stores: Stores;

  beforeAll(async () => {
    redis = await DisposableRedis.start();
    proxy = await startLossyProxy(redis.port);
    // The gateway's client: fail-fast producer role (no offline queue, one retry per command).
    client = createRedis({ kind: 'server', url: proxy.url }, 'producer', 'resent-test');
    await waitForRedis(client);
    stores = createStores(client, prefix, 'resent-secret-0123456789abcdef');
  });

  afterAll(async () => {
    client?.disconnect();
    await proxy?.close();
    await redis?.dispose();
  });

  it('creates the request record once and says so', async () => {
    const id = newRequestId();
    proxy.loseReplyTo(id);
    const created = await stores.records.create({ id, family: 'scrape', accountId: 'acct-1', input: { url: 'https://example.com/' } });
    expect(proxy.lost()).toBe(1);
    expect(created).toMatchObject({ id, status: 'received' });
    expect(await stores.records.get('scrape', id)).toMatchObject({ id, accountId: 'acct-1', status: 'received' });
  });

  it("still refuses a record another request's id already names", async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'scrape', accountId: 'acct-1', input: {} });
    await expect(stores.records.create({ id, family: 'scrape', accountId: 'acct-2', input: {} })).rejects.toThrow(/already exists/);
  });

  it("counts a request once, and its account's credits once", async () => {
    const id = newRequestId();
    proxy.loseReplyTo(id);
    const lostBefore = proxy.lost();
    await stores.usage.countRequest('acct-3', 'scrape-v1', 1, id);
    expect(proxy.lost()).toBe(lostBefore + 1);
    await stores.usage.countRequest('acct-3', 'scrape-v1', 1, newRequestId());
    expect(await stores.usage.read('acct-3')).toMatchObject({ credits_used: 2, requests: { 'scrape-v1': 2 } });
  });

  it('claims an Idempotency-Key for the request whose claim ran twice', async () => {
    // Once before, so that the script is loaded: the lost reply is then the claim's, not NOSCRIPT's.
    await stores.idempotencyKeys.createClaimed({ id: newRequestId(), family: 'scrape', accountId: 'acct-1', input: {} }, 'warm-up', 'f0');
    const id = newRequestId();
    const lostBefore = proxy.lost();
    proxy.loseReplyTo(id);
    const outcome = await stores.idempotencyKeys.createClaimed({ id, family: 'scrape', accountId: 'acct-1', input: {} }, 'key-1', 'f1');
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(outcome).toMatchObject({ created: true, record: { id } });
    // Another request with the key is still answered with the first one.
    expect(await stores.idempotencyKeys.createClaimed({ id: newRequestId(), family: 'scrape', accountId: 'acct-1', input: {} }, 'key-1', 'f1')).toEqual({ created: false, claim: { requestId: id, fingerprint: 'f1' } });
  });
});

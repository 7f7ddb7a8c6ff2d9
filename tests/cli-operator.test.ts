import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gleanerCli } from './support/cli.js';
import { serviceEnv, withRedisServer } from './support/env.js';
import { GatewayHarness } from './support/gateway.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';

/**
 * The operator commands of `pnpm gleaner` (INTERFACE.md), run as operators run them, against the
 * test database under a prefix of their own. What they change is checked through a gateway on the
 * same prefix: keys authenticate (or not) with the scopes listed, and a rate limit set here is the
 * one the gateway enforces.
 */
const prefix = testPrefix('cli-operator');
const env = serviceEnv(prefix);
let h: GatewayHarness;

beforeAll(async () => {
  h = await GatewayHarness.start(prefix);
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

const usage = (apiKey: string) => fetch(`${h.url}/account/usage`, { headers: { 'x-api-key': apiKey } });

/** `keys create` prints `key <id> scopes <list>`, then the key itself as the last line. */
async function createKey(account: string, scopes?: string): Promise<{ keyId: string; scopes: string; apiKey: string }> {
  const { stdout, stderr } = await gleanerCli(['keys', 'create', '--account', account, ...(scopes ? ['--scopes', scopes] : [])], env);
  expect(stderr).toBe('');
  const lines = stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  const [, keyId, listed] = /^key ([0-9a-f]+) scopes (\S+)$/.exec(lines[0]) ?? [];
  expect(keyId).toBeDefined();
  const apiKey = lines[1];
  expect(apiKey).toMatch(new RegExp(`^glk_${keyId}_[A-Za-z0-9_-]{20,}$`));
  return { keyId, scopes: listed, apiKey };
}

/** `keys list` prints one tab-separated line per key: id, scopes, state, preview. */
async function listKeys(account: string): Promise<{ stdout: string; keys: Array<{ keyId: string; scopes: string; state: string }> }> {
  const { stdout, stderr } = await gleanerCli(['keys', 'list', '--account', account], env);
  expect(stderr).toBe('');
  const keys = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [keyId, scopes, state] = line.split('\t');
      return { keyId, scopes, state };
    });
  return { stdout, keys };
}

describe('accounts create', () => {
  it('creates an account once: a second run answers the same account', async () => {
    const first = await gleanerCli(['accounts', 'create', 'op-acme'], env);
    expect(first.stderr).toBe('');
    const [, id] = /^account op-acme (\S+)\n$/.exec(first.stdout) ?? [];
    expect(id).toBeDefined();
    const second = await gleanerCli(['accounts', 'create', 'op-acme'], env);
    expect(second).toEqual({ stdout: `account op-acme ${id}\n`, stderr: '' });
    expect((await h.stores.accounts.getAccountByName('op-acme'))?.id).toBe(id);
  }, 60_000);
});

describe('keys', () => {
  const ACCOUNT = 'op-keys';

  beforeAll(async () => {
    await gleanerCli(['accounts', 'create', ACCOUNT], env);
  }, 30_000);

  it('create: all scopes by default, or the --scopes given; the gateway honours them', async () => {
    const all = await createKey(ACCOUNT);
    expect(all.scopes).toBe('scrape,parse,account');
    expect((await usage(all.apiKey)).status).toBe(200);

    const scrapeOnly = await createKey(ACCOUNT, 'scrape');
    expect(scrapeOnly.scopes).toBe('scrape');
    // A key without the `account` scope is known but not allowed here: 403, not 401.
    expect((await usage(scrapeOnly.apiKey)).status).toBe(403);

    const two = await createKey(ACCOUNT, 'parse,account');
    expect(two.scopes).toBe('parse,account');
    expect((await usage(two.apiKey)).status).toBe(200);
  }, 60_000);

  it('list shows every key with its scopes and state, never the secret; revoke turns a key away', async () => {
    const a = await createKey(ACCOUNT, 'scrape,account');
    const b = await createKey(ACCOUNT);
    const before = await listKeys(ACCOUNT);
    expect(before.keys).toEqual(expect.arrayContaining([{ keyId: a.keyId, scopes: 'scrape,account', state: 'active' }, { keyId: b.keyId, scopes: 'scrape,parse,account', state: 'active' }]));
    for (const { apiKey, keyId } of [a, b]) {
      expect(before.stdout).not.toContain(apiKey);
      // The secret part alone: everything after `glk_<keyId>_` (base64url, so it may itself contain `_`).
      const secret = apiKey.slice(`glk_${keyId}_`.length);
      expect(secret).toHaveLength(32);
      expect(before.stdout).not.toContain(secret);
    }

    const revoked = await gleanerCli(['keys', 'revoke', a.keyId], env);
    expect(revoked).toEqual({ stdout: `key ${a.keyId} revoked\n`, stderr: '' });
    expect((await usage(a.apiKey)).status).toBe(401);
    expect((await usage(b.apiKey)).status).toBe(200);

    const after = await listKeys(ACCOUNT);
    expect(after.keys).toHaveLength(before.keys.length);
    expect(after.keys).toEqual(expect.arrayContaining([{ keyId: a.keyId, scopes: 'scrape,account', state: 'revoked' }, { keyId: b.keyId, scopes: 'scrape,parse,account', state: 'active' }]));
  }, 90_000);
});

describe('accounts set-rate-limit', () => {
  it('sets the limit the gateway enforces on the account keys, existing ones included; other accounts keep the default', async () => {
    await gleanerCli(['accounts', 'create', 'op-limited'], env);
    await gleanerCli(['accounts', 'create', 'op-unlimited'], env);
    const limited = await createKey('op-limited');
    const other = await createKey('op-unlimited');
    const first = await usage(limited.apiKey);
    expect(first.headers.get('ratelimit-limit')).toBe('60');
    expect(((await first.json()) as Record<string, unknown>).rate_limit_per_minute).toBe(60);

    const set = await gleanerCli(['accounts', 'set-rate-limit', 'op-limited', '3'], env);
    expect(set).toEqual({ stdout: 'account op-limited rate limit 3/min\n', stderr: '' });

    const statuses: number[] = [];
    let limitedAnswer: Response | undefined;
    // Fixed one-minute windows: at most one window boundary in these few requests, so a limit of 3
    // answers 429 within 7 of them whatever the timing; the default of 60 never would.
    for (let i = 0; i < 7 && !limitedAnswer; i++) {
      const res = await usage(limited.apiKey);
      statuses.push(res.status);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      if (res.status === 429) limitedAnswer = res;
      else expect(((await res.json()) as Record<string, unknown>).rate_limit_per_minute).toBe(3);
    }
    expect(statuses).toContain(429);
    expect(Number(limitedAnswer!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(6);

    const untouched = await usage(other.apiKey);
    expect(untouched.status).toBe(200);
    expect(untouched.headers.get('ratelimit-limit')).toBe('60');
    expect(((await untouched.json()) as Record<string, unknown>).rate_limit_per_minute).toBe(60);
  }, 90_000);
});

describe('bad input', () => {
  const ACCOUNT = 'op-bad-input';

  it('exits 1 with exactly one line on stderr, nothing on stdout, and changes nothing', async () => {
    await gleanerCli(['accounts', 'create', ACCOUNT], env);
    const existing = await createKey(ACCOUNT, 'scrape');
    const cases: Array<[string[], string]> = [
      [['frobnicate'], "error: unknown command 'frobnicate' (run 'gleaner help' for the list)"],
      [['accounts', 'delete', ACCOUNT], `error: unknown command 'accounts delete ${ACCOUNT}' (run 'gleaner help' for the list)`],
      [['accounts', 'create'], 'error: accounts create <name>'],
      [['accounts', 'create', 'no spaces allowed'], 'error: account name must be 1-64 letters, digits or _.@-'],
      [['accounts', 'set-rate-limit', ACCOUNT, 'lots'], "error: requestsPerMinute must be a whole number, not 'lots'"],
      [['accounts', 'set-rate-limit', ACCOUNT, '2.5'], "error: requestsPerMinute must be a whole number, not '2.5'"],
      [['accounts', 'set-rate-limit', ACCOUNT, '0'], 'error: rate limit must be a whole number of requests per minute, 1 or more'],
      [['accounts', 'set-rate-limit', 'op-nobody', '5'], "error: no account named 'op-nobody'"],
      [['keys', 'create'], 'error: --account is required'],
      [['keys', 'create', '--account', 'op-nobody'], "error: no account named 'op-nobody'"],
      [['keys', 'create', '--account', ACCOUNT, '--scopes', 'scrape,admin'], 'error: scopes must be among scrape, parse, account'],
      [['keys', 'list', '--account', 'op-nobody'], "error: no account named 'op-nobody'"],
      [['keys', 'revoke', 'feedfacefeedface'], 'error: no API key feedfacefeedface'],
    ];
    const outcomes = [];
    for (const [args] of cases) {
      outcomes.push(
        await gleanerCli(args, env).then(
          (ok) => ({ code: 0, ...ok }),
          (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
        ),
      );
    }
    expect(outcomes).toEqual(cases.map(([, line]) => ({ code: 1, stdout: '', stderr: `${line}\n` })));

    // Nothing was created or changed by the failed commands.
    expect((await listKeys(ACCOUNT)).keys).toEqual([{ keyId: existing.keyId, scopes: 'scrape', state: 'active' }]);
    const account = await h.stores.accounts.getAccountByName(ACCOUNT);
    expect(account?.rateLimitPerMinute).toBeUndefined();
    expect(await h.stores.accounts.getAccountByName('op-nobody')).toBeNull();
    expect(await h.stores.accounts.getAccountByName('no spaces allowed')).toBeNull();
  }, 180_000);

  it('an unknown command is bad input even when Redis is unreachable; a known one says Redis cannot be reached, in one line', async () => {
    const unreachable = withRedisServer(env, 'redis://127.0.0.1:1/2');
    await expect(gleanerCli(['keys', 'rotate'], unreachable)).rejects.toMatchObject({ code: 1, stdout: '', stderr: "error: unknown command 'keys rotate' (run 'gleaner help' for the list)\n" });
    await expect(gleanerCli(['keys', 'list', '--account', ACCOUNT], unreachable)).rejects.toMatchObject({ code: 1, stdout: '', stderr: 'error: cannot reach Redis at redis://127.0.0.1:1/2: is it running? REDIS_URL sets its address (pnpm start runs one when it is unset)\n' });
  }, 60_000);

  it('an invalid environment is one line too', async () => {
    await expect(gleanerCli(['keys', 'list', '--account', ACCOUNT], { ...env, REDIS_URL: 'http://127.0.0.1:6379' })).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^error: invalid configuration: "REDIS_URL" must be a valid uri with a scheme matching the redis\|rediss pattern\n$/),
    });
  }, 30_000);

  it('help prints the usage on stdout and exits 0; no command prints it on stderr and exits 2', async () => {
    const { stdout, stderr } = await gleanerCli(['help'], env);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^usage: gleaner <command>\n/);
    for (const command of ['accounts create <name>', 'accounts set-rate-limit <name> <requestsPerMinute>', 'keys create --account <name>', 'keys list --account <name>', 'keys revoke <keyId>', 'llm-keys add --account <name>']) {
      expect(stdout).toContain(command);
    }
    await expect(gleanerCli([], env)).rejects.toMatchObject({ code: 2, stdout: '', stderr: stdout });
  }, 30_000);
});

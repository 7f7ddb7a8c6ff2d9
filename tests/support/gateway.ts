import { createLogger, waitForRedis } from '@gleaner/platform';
import { loadGatewayConfig, startGateway, type RunningGateway } from '@gleaner/gateway';
import { serviceEnv } from './env.js';

export interface TestAccount {
  accountId: string;
  apiKey: string;
}

/**
 * An in-process gateway on real Redis (random prefix) listening on a free port, with helpers to
 * create accounts and keys. Tests use supertest or fetch against `url`.
 */
export class GatewayHarness {
  private constructor(readonly gateway: RunningGateway) {}

  /** `logger` lets a test read what the gateway logs (e.g. to check that secrets never appear). */
  static async start(prefix: string, env: Record<string, string> = {}, logger = createLogger('gateway-test', 'error')): Promise<GatewayHarness> {
    const config = loadGatewayConfig(serviceEnv(prefix, { PORT: '0', ...env }));
    const gateway = await startGateway(config, logger);
    // The gateway listens before its Redis connection is up (it answers 503 meanwhile); tests use
    // its stores directly at once, and under load the connection can still be opening.
    await waitForRedis(gateway.deps.redis, 10_000);
    return new GatewayHarness(gateway);
  }

  get url(): string {
    return this.gateway.url;
  }

  get stores() {
    return this.gateway.deps.stores;
  }

  async account(name: string, scopes?: Array<'scrape' | 'parse' | 'account'>): Promise<TestAccount> {
    const account = await this.stores.accounts.createAccount(name);
    const { apiKey } = await this.stores.accounts.createApiKey(account.id, scopes);
    return { accountId: account.id, apiKey };
  }

  stop(): Promise<void> {
    return this.gateway.stop();
  }
}

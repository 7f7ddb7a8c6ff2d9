import { runServiceProcess } from '@gleaner/platform';
import { loadWebhookDispatcherConfig } from './config.js';
import { startWebhookDispatcher } from './service.js';

await runServiceProcess('webhook-dispatcher', loadWebhookDispatcherConfig, startWebhookDispatcher);

import { runServiceProcess } from '@gleaner/platform';
import { loadBotConnectorConfig } from './config.js';
import { startBotConnector } from './service.js';

await runServiceProcess('bot-connector', loadBotConnectorConfig, startBotConnector);

import { announce, createLogger, exitOnBootFailure, exitOnSignals } from '@gleaner/platform';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './service.js';

// A bad configuration (or anything else that stops the boot) ends the process with one line.
try {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const gateway = await startGateway(config, logger);
  exitOnSignals(gateway.stop, logger);
  announce('gateway', `gateway listening on http://${config.HOST}:${new URL(gateway.url).port}`);
} catch (err) {
  exitOnBootFailure('gateway', err);
}

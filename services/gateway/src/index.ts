import { createLogger, main, startTracing, stopOnSignals, stopTracing } from '@switchyard/shared';
import { loadGatewayConfig } from './config';
import { startGateway } from './server';

const logger = createLogger('gateway');

main(logger, async () => {
  // First: the gRPC clients made below get the tracing interceptor only when it is on.
  startTracing('gateway');
  const config = loadGatewayConfig();
  logger.level = config.logLevel;
  const running = await startGateway({ config, logger });
  stopOnSignals(logger, async () => {
    await running.stop();
    await stopTracing();
  });
});

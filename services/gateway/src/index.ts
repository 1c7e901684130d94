import { createLogger, main, stopOnSignals } from '@switchyard/shared';
import { loadGatewayConfig, startGateway } from './server';

const logger = createLogger('gateway');

main(logger, async () => {
  const config = loadGatewayConfig();
  logger.level = config.logLevel;
  const running = await startGateway({ config, logger });
  stopOnSignals(logger, running.stop);
});

import { startMetricsServer as startSharedMetricsServer, type Logger } from '@switchyard/shared';
import { SERVED_REGISTRIES } from './metrics';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** GET /metrics (shared endpoint) with the delivery-engine and gRPC metrics; port 0 picks a free port. */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  logger: Logger;
}): Promise<MetricsServer> {
  const server = await startSharedMetricsServer({ ...options, registries: SERVED_REGISTRIES });
  return { port: server.port, close: () => server.stop() };
}

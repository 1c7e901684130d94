import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { metricsExposition } from './metrics';

export interface RunningMetricsServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * A tiny HTTP server answering GET /metrics with the given registries plus the process metrics
 * (Prometheus text); 404 elsewhere. Port 0 picks a free port.
 */
export async function startMetricsServer(options: {
  port: number;
  host: string;
  registries: Registry[];
  logger: Logger;
}): Promise<RunningMetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metricsExposition(options.registries).then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (error: unknown) => {
        options.logger.error({ err: error }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port }, 'metrics endpoint listening');
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { checkHealth, type Logger, type RunningService } from '@switchyard/shared';
import { InMemoryApiKeyStore, type ApiKeyStore } from './auth/api-key-store';
import { closeGatewayClients, createGatewayClients, type GatewayClients } from './clients';
import { loadGatewayConfig, type GatewayConfig } from './config';
import { errorHandler } from './middleware/errors';
import { createHttpMetrics, observe } from './middleware/metrics';
import { requestId, type GatewayState } from './middleware/request-id';
import { buildOpenApi } from './openapi';
import { routeTable } from './routes';
import type { RouteDeps } from './routes/types';
import { DefaultResultUrls } from './routes/default-result-url';
import { buildRouter, unmatched } from './routing';

export { loadGatewayConfig, type GatewayConfig };
export { InMemoryApiKeyStore, hashApiKey, generateApiKey, type ApiKeyStore, type ApiKeyRecord } from './auth/api-key-store';
export { createGatewayClients, type GatewayClients } from './clients';
export { buildOpenApi } from './openapi';
export { routeTable } from './routes';

/** The organization that DEV_API_KEY belongs to. */
export const DEV_ORGANIZATION = 'dev';

export interface GatewayAppDeps {
  config: Pick<GatewayConfig, 'bodyLimitBytes'>;
  logger: Logger;
  clients: GatewayClients;
  apiKeys: ApiKeyStore;
  /** Defaults to shared checkHealth (grpc.health.v1). */
  checkHealth?: (address: string, service: string) => Promise<string>;
  /** How long "has a default result URL" is cached per organization (default 5 s; tests use 0). */
  defaultResultUrlCacheMs?: number;
}

/**
 * Errors after the response started (the middleware answers all others): a client leaving an
 * event stream early is routine, anything else is logged.
 */
function responseFailed(logger: Logger) {
  return (error: NodeJS.ErrnoException, ctx?: Koa.Context) => {
    const requestId = (ctx?.state as GatewayState | undefined)?.requestId;
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') logger.debug({ requestId }, 'client closed the response early');
    else logger.warn({ err: error, requestId }, 'response failed after it started');
  };
}

/** The Koa app without a listener (tests mount it on port 0). */
export function createGatewayApp(deps: GatewayAppDeps): Koa<GatewayState> {
  const metrics = createHttpMetrics();
  const openapi = buildOpenApi(routeTable);
  const routeDeps: RouteDeps = {
    clients: deps.clients,
    logger: deps.logger,
    checkHealth: deps.checkHealth ?? ((address, service) => checkHealth(address, service)),
    metrics: metrics.registry,
    defaultResultUrls: new DefaultResultUrls(deps.clients.notification, deps.logger, deps.defaultResultUrlCacheMs),
    openapi: () => openapi,
  };
  const router = buildRouter(routeTable, routeDeps, deps.apiKeys, deps.config.bodyLimitBytes);
  const app = new Koa<GatewayState>({ proxy: false });
  app.on('error', responseFailed(deps.logger));
  app.use(requestId());
  app.use(observe(metrics, deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(router.routes() as unknown as Koa.Middleware<GatewayState>);
  app.use(unmatched(router));
  return app;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

export async function startGateway({ config, logger }: { config: GatewayConfig; logger: Logger }): Promise<RunningService> {
  const apiKeys = new InMemoryApiKeyStore();
  if (config.devApiKey) await apiKeys.register(config.devApiKey, DEV_ORGANIZATION);
  const clients = createGatewayClients(config, config.grpcDeadlineMs);
  const app = createGatewayApp({ config, logger, clients, apiKeys });
  const server = createServer(app.callback());
  const port = await listen(server, config.host, config.port);
  logger.info({ host: config.host, port, devKey: Boolean(config.devApiKey) }, 'gateway listening');
  return {
    name: 'gateway',
    port,
    stop: async () => {
      await close(server); // finishes requests in flight before the clients go away
      closeGatewayClients(clients);
    },
  };
}

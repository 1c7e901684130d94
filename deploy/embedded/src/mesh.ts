import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InMemoryEventBus,
  bool,
  createLogger,
  readEnv,
  stopUsingInProcessGrpc,
  useInProcessGrpc,
  type EventBus,
  type Logger,
  type RunningService,
} from '@switchyard/shared';
import { loadContentConfig, startContentService } from '@switchyard/content';
import {
  assistantMetrics,
  loadAssistantConfig,
  startAssistantService,
} from '@switchyard/assistant';
import { loadRecommendationConfig, startRecommendationService } from '@switchyard/recommendation';
import {
  createStores as createNotificationStores,
  loadNotificationConfig,
  notificationMetrics,
  startNotificationService,
} from '@switchyard/notification';
import { loadGatewayConfig, startGateway } from '@switchyard/gateway';
import { importDemoData } from './demo-data';

export interface EmbeddedMesh {
  gatewayUrl: string;
  /** The dev organization's API key (from DEV_API_KEY or generated). */
  apiKey: string;
  /** The dev organization's signing secret (from DEV_SIGNING_SECRET or generated). */
  signingSecret: string;
  /** The token of the admin API and CLI (from ADMIN_TOKEN or generated). */
  adminToken: string;
  generated: { apiKey: boolean; signingSecret: boolean; adminToken: boolean };
  /** The model that answers requests naming none: its id and provider. */
  defaultModel: { id: string; provider: string };
  bus: EventBus;
  services: RunningService[];
  stop(): Promise<void>;
}

/** The services the embedded mesh runs (the tracing service names of embedded mode). */
export const EMBEDDED_SERVICES = [
  'gateway',
  'content',
  'assistant',
  'recommendation',
  'notification',
] as const;

export function generateApiKey(): string {
  return `sk_dev_${randomBytes(24).toString('base64url')}`;
}

export function generateAdminToken(): string {
  return `adm_${randomBytes(24).toString('base64url')}`;
}

export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The whole mesh in one process: each service on its own loopback gRPC port, in-memory adapters,
 * the configured models (the builtin one unless env names others), one in-process event bus. Variables in env override the defaults. The
 * services call each other over Unix sockets in a private temporary directory (the same gRPC,
 * cheaper than TCP on loopback); their TCP ports stay open for grpcurl, probes and benchmarks.
 */
export interface EmbeddedOptions {
  /**
   * The current time of the assistants (dates in users' words) and the gateway (key expiry,
   * budget periods, quota months): tests fix or move it; default the clock.
   */
  now?: () => Date;
}

export async function startEmbeddedMesh(
  env: NodeJS.ProcessEnv = process.env,
  logger: Logger = createLogger('embedded'),
  options: EmbeddedOptions = {},
): Promise<EmbeddedMesh> {
  // The services call each other in-process unless GRPC_IN_PROCESS=false (gRPC over their sockets).
  const { GRPC_IN_PROCESS: inProcess } = readEnv<{ GRPC_IN_PROCESS: boolean }>(
    { GRPC_IN_PROCESS: bool({ default: true }) },
    env,
  );
  if (inProcess) await useInProcessGrpc();
  else stopUsingInProcessGrpc();
  const apiKey = env.DEV_API_KEY || generateApiKey();
  const signingSecret = env.DEV_SIGNING_SECRET || generateSigningSecret();
  const adminToken = env.ADMIN_TOKEN || generateAdminToken();
  const serviceEnv: NodeJS.ProcessEnv = {
    SWITCHYARD_MODE: 'embedded',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...env,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
    DEV_API_KEY: apiKey,
    DEV_SIGNING_SECRET: signingSecret,
    ADMIN_TOKEN: adminToken,
  };
  const bus = new InMemoryEventBus({ logger: logger.child({ component: 'bus' }) });
  const services: RunningService[] = [];
  const child = (name: string) => logger.child({ service: name });
  // Windows has no Unix sockets for grpc-js to use: the services call each other over TCP there.
  const sockets =
    process.platform === 'win32' ? undefined : mkdtempSync(join(tmpdir(), 'switchyard-'));
  const socketOf = (name: string) => (sockets ? join(sockets, `${name}.sock`) : '');
  const envOf = (name: string, extra: NodeJS.ProcessEnv = {}) => ({
    ...serviceEnv,
    GRPC_UNIX_SOCKET: socketOf(name),
    ...extra,
  });
  const addressOf = (service: RunningService) =>
    sockets ? `unix:${socketOf(service.name)}` : `127.0.0.1:${service.port}`;
  const cleanUp = async () => {
    await stopAll(services, bus);
    if (sockets) rmSync(sockets, { recursive: true, force: true });
  };
  let defaultModel: EmbeddedMesh['defaultModel'] | undefined;
  try {
    const content = await startContentService({
      config: loadContentConfig(envOf('content')),
      bus,
      logger: child('content'),
      env: serviceEnv,
    });
    services.push(content);
    defaultModel = { id: content.defaultModel.id, provider: content.defaultModel.provider };
    const recommendation = await startRecommendationService({
      config: loadRecommendationConfig(envOf('recommendation')),
      bus,
      logger: child('recommendation'),
    });
    services.push(recommendation);
    // The assistant calls content (models) and recommendation (its recommend tool).
    const assistantEnv = envOf('assistant', {
      CONTENT_ADDR: addressOf(content),
      RECOMMENDATION_ADDR: addressOf(recommendation),
    });
    const assistant = await startAssistantService({
      config: loadAssistantConfig(assistantEnv),
      bus,
      logger: child('assistant'),
      now: options.now,
    });
    services.push(assistant);
    // As its own process would: MongoDB and Redis when their variables are set, else in memory.
    const notificationConfig = loadNotificationConfig(envOf('notification'));
    const notificationStores = await createNotificationStores(
      notificationConfig,
      child('notification'),
    );
    const notification = await startNotificationService({
      config: notificationConfig,
      bus,
      logger: child('notification'),
      stores: notificationStores.stores,
    }).catch(async (error: unknown) => {
      await notificationStores.close();
      throw error;
    });
    services.push({
      name: notification.name,
      port: notification.port,
      stop: async () => {
        await notification.stop();
        await notificationStores.close();
      },
    });
    const gatewayConfig = loadGatewayConfig({
      ...serviceEnv,
      GATEWAY_HOST: env.GATEWAY_HOST ?? '127.0.0.1',
      CONTENT_ADDR: addressOf(content),
      ASSISTANT_ADDR: addressOf(assistant),
      RECOMMENDATION_ADDR: addressOf(recommendation),
      NOTIFICATION_ADDR: addressOf(notification),
    });
    // One process: the gateway's /metrics also serves the delivery metrics.
    const gateway = await startGateway({
      config: gatewayConfig,
      logger: child('gateway'),
      bus,
      metricsRegistries: [notificationMetrics, assistantMetrics],
      now: options.now,
    });
    services.push(gateway);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const gateway = services[services.length - 1]!;
  const gatewayUrl = `http://127.0.0.1:${gateway.port}`;
  // DEMO_DATA=false starts with an empty dev organization (the tests do).
  if (env.DEMO_DATA !== 'false') {
    try {
      await importDemoData(gatewayUrl, apiKey, (options.now ?? (() => new Date()))());
    } catch (error) {
      await cleanUp();
      throw error;
    }
  }
  return {
    gatewayUrl,
    apiKey,
    signingSecret,
    adminToken,
    generated: {
      apiKey: !env.DEV_API_KEY,
      signingSecret: !env.DEV_SIGNING_SECRET,
      adminToken: !env.ADMIN_TOKEN,
    },
    defaultModel: defaultModel!,
    bus,
    services,
    stop: cleanUp,
  };
}

/** Gateway first (stop taking requests), then the services, then the bus. */
async function stopAll(services: RunningService[], bus: EventBus): Promise<void> {
  for (const service of [...services].reverse()) await service.stop();
  await bus.close();
}

import { loadAssistantConfig } from '@switchyard/assistant';
import { loadContentConfig } from '@switchyard/content';
import { loadGatewayConfig } from '@switchyard/gateway';
import { loadNotificationConfig } from '@switchyard/notification';
import { loadRecommendationConfig } from '@switchyard/recommendation';
import { readKafkaSettings, readTracingSettings } from '@switchyard/shared';
import { parse as parseJsonc } from 'jsonc-parser';

export const SERVICES = [
  'gateway',
  'content',
  'assistant',
  'recommendation',
  'notification',
] as const;
export type ServiceName = (typeof SERVICES)[number];

type Loader = (env: NodeJS.ProcessEnv) => unknown;

/** What each service process loads at start (its config, the bus settings where it uses Kafka, tracing). */
const LOADERS: Record<ServiceName, Loader[]> = {
  gateway: [loadGatewayConfig, readKafkaSettings, readTracingSettings],
  content: [loadContentConfig, readKafkaSettings, readTracingSettings],
  assistant: [loadAssistantConfig, readKafkaSettings, readTracingSettings],
  recommendation: [loadRecommendationConfig, readKafkaSettings, readTracingSettings],
  notification: [loadNotificationConfig, readKafkaSettings, readTracingSettings],
};

/**
 * Read outside the config loaders: SERVICE by the image's CMD, PROTO_DIR and NODE_ENV set by the
 * image; the admin CLI (run in the gateway container) reads GATEWAY_URL and ADMIN_TOKEN.
 */
const PROCESS_LEVEL: Record<ServiceName, string[]> = {
  gateway: ['SERVICE', 'PROTO_DIR', 'NODE_ENV', 'GATEWAY_URL'],
  content: ['SERVICE', 'PROTO_DIR', 'NODE_ENV'],
  assistant: ['SERVICE', 'PROTO_DIR', 'NODE_ENV'],
  recommendation: ['SERVICE', 'PROTO_DIR', 'NODE_ENV'],
  notification: ['SERVICE', 'PROTO_DIR', 'NODE_ENV'],
};

/**
 * What a deployment of the distributed mesh must set per service: without these a service starts
 * but keeps state in one process's memory (lost on restart, not shared by replicas), or the admin
 * API stays closed.
 */
export const REQUIRED_IN_CLUSTER: Record<ServiceName, string[]> = {
  gateway: ['ADMIN_TOKEN', 'MONGODB_URI', 'REDIS_URL', 'KAFKA_BROKERS'],
  content: ['MONGODB_URI', 'KAFKA_BROKERS'],
  assistant: ['MONGODB_URI', 'REDIS_URL', 'KAFKA_BROKERS'],
  recommendation: ['MONGODB_URI', 'KAFKA_BROKERS'],
  notification: ['MONGODB_URI', 'REDIS_URL', 'KAFKA_BROKERS', 'SECRETS_ENCRYPTION_KEY'],
};

/** Runs the loaders against an env that records every name they look up. */
function recordReads(
  service: ServiceName,
  env: NodeJS.ProcessEnv,
): { read: Set<string>; errors: string[] } {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return target[key as string];
    },
  });
  const errors: string[] = [];
  for (const load of LOADERS[service]) {
    try {
      load(recording);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return { read, errors };
}

/** The API key variables a model registry file names (apiKeyEnv). */
export function registryKeyNames(registryText: string): string[] {
  const registry = parseJsonc(registryText) as { models?: Array<{ apiKeyEnv?: string }> };
  return (registry.models ?? []).flatMap((model) => (model.apiKeyEnv ? [model.apiKeyEnv] : []));
}

/** Every variable the service reads (with the given model registry for content). */
export function variablesRead(service: ServiceName, registryKeys: string[] = []): Set<string> {
  const names = recordReads(service, {}).read;
  for (const name of PROCESS_LEVEL[service]) names.add(name);
  if (service === 'content') for (const name of registryKeys) names.add(name);
  return names;
}

/** The problems the service's own loaders report for this environment ([] = it would start). */
export function startupProblems(service: ServiceName, env: NodeJS.ProcessEnv): string[] {
  return recordReads(service, env).errors;
}

import { Gauge, Registry } from 'prom-client';
import {
  AppError,
  commandMetrics,
  DEPENDENCY_NAMES,
  dependencyHealthName,
  dependencyMetrics,
  type DependencyName,
  grpcClientMetrics,
  grpcServerMetrics,
} from '@switchyard/shared';
import { healthTargets } from '../clients';
import type { JsonSchema } from '../schemas/common';
import { json, type AnyRoute, type RouteDeps, type RouteSpec } from './types';

const HealthStatus: JsonSchema = {
  title: 'HealthStatus',
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { type: 'string', const: 'ok' } },
};

const Readiness: JsonSchema = {
  title: 'Readiness',
  type: 'object',
  additionalProperties: false,
  required: ['status', 'services', 'dependencies'],
  properties: {
    // degraded: a downstream service is not SERVING, or a shared dependency is down; the calls
    // that need it answer 503 unavailable, the others keep working.
    status: { type: 'string', enum: ['ready', 'degraded'] },
    services: { type: 'object', additionalProperties: { type: 'string' } },
    dependencies: {
      type: 'object',
      description:
        'redis, mongodb and kafka as the gateway and every serving service last saw them: down when any of them sees it down (absent when none uses it)',
      additionalProperties: { type: 'string', enum: ['up', 'down'] },
    },
    dependenciesDown: {
      type: 'object',
      description:
        'Which component (gateway or a service) sees which dependency down: the routes through that component answer 503 unavailable with Retry-After until it is back. Absent when none is down.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
  },
};

const base = { tag: 'system', auth: false } as const;

const healthz: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/healthz',
  operationId: 'healthz',
  summary: 'Liveness: the gateway process answers',
  responses: { 200: { description: 'Alive', schema: HealthStatus } },
  handle: async () => json(200, { status: 'ok' }),
};

const downstreamUpGauges = new WeakMap<Registry, Gauge>();

/** gateway_downstream_up{service}: 1 while the service answered SERVING at the last /readyz. */
function downstreamUp(registry: Registry): Gauge {
  let gauge = downstreamUpGauges.get(registry);
  if (!gauge) {
    gauge = new Gauge({
      name: 'gateway_downstream_up',
      help: 'Whether a downstream service reported SERVING at the last readiness check (1) or not (0).',
      labelNames: ['service'],
      registers: [registry],
    });
    downstreamUpGauges.set(registry, gauge);
  }
  return gauge;
}

interface DownstreamHealth {
  status: string;
  /** Dependencies the service reports down (grpc.health.v1 names from dependencyHealthName). */
  down: DependencyName[];
  up: DependencyName[];
}

/** One service's status and, when it serves, each dependency it reports (unused ones are unknown). */
async function downstreamHealth(
  deps: RouteDeps,
  target: { address: string; service: string },
): Promise<DownstreamHealth> {
  const status = await deps.checkHealth(target.address, target.service);
  if (status !== 'SERVING') return { status, down: [], up: [] };
  const reported = await Promise.all(
    DEPENDENCY_NAMES.map((name) => deps.checkHealth(target.address, dependencyHealthName(name))),
  );
  return {
    status,
    down: DEPENDENCY_NAMES.filter((_, i) => reported[i] === 'NOT_SERVING'),
    up: DEPENDENCY_NAMES.filter((_, i) => reported[i] === 'SERVING'),
  };
}

async function downstreamStatuses(deps: RouteDeps): Promise<Record<string, DownstreamHealth>> {
  const targets = healthTargets(deps.clients);
  const health = await Promise.all(targets.map((t) => downstreamHealth(deps, t)));
  const up = downstreamUp(deps.metrics);
  targets.forEach((t, i) => up.set({ service: t.name }, health[i]!.status === 'SERVING' ? 1 : 0));
  return Object.fromEntries(targets.map((t, i) => [t.name, health[i]!]));
}

/**
 * The dependencies as every component sees them: the gateway's own view and each serving
 * service's. A dependency is down when any component sees it down (its routes answer 503).
 */
function dependencyView(
  own: Partial<Record<DependencyName, 'up' | 'down'>>,
  downstream: Record<string, DownstreamHealth>,
) {
  const dependencies: Partial<Record<DependencyName, 'up' | 'down'>> = { ...own };
  const dependenciesDown: Record<string, DependencyName[]> = {};
  const ownDown = DEPENDENCY_NAMES.filter((name) => own[name] === 'down');
  if (ownDown.length > 0) dependenciesDown.gateway = ownDown;
  for (const [service, health] of Object.entries(downstream)) {
    for (const name of health.up) dependencies[name] ??= 'up';
    for (const name of health.down) dependencies[name] = 'down';
    if (health.down.length > 0) dependenciesDown[service] = health.down;
  }
  return { dependencies, dependenciesDown };
}

/**
 * Ready while at least one downstream service serves: one service down must not take every
 * gateway replica out of rotation (calls to it answer 503 unavailable, the rest keep working).
 * Every replica sees the same services, so failing readiness would only turn those 503s into
 * the load balancer's. Not ready when none serves (e.g. at first start, or wrong addresses).
 * A shared dependency down (Redis, MongoDB, Kafka) makes it `degraded`, never not ready: every
 * replica shares it, so failing readiness would empty the Service of all of them at once, and
 * clients would get connection errors instead of 503 with Retry-After (Kubernetes' guidance:
 * readiness should not depend on shared external dependencies).
 */
const readyz: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/readyz',
  operationId: 'readyz',
  summary:
    'Readiness: 200 ready, or degraded when a downstream service is not SERVING or a shared dependency is down; 503 when no service is',
  responses: {
    200: {
      description: 'Ready (status ready or degraded, with each service status)',
      schema: Readiness,
    },
  },
  errors: ['unavailable'],
  async handle(_input, deps) {
    const downstream = await downstreamStatuses(deps);
    const services = Object.fromEntries(
      Object.entries(downstream).map(([name, health]) => [name, health.status]),
    );
    const { dependencies, dependenciesDown } = dependencyView(deps.dependencies(), downstream);
    const failing = Object.entries(services).filter(([, status]) => status !== 'SERVING');
    const dependencyDown = Object.keys(dependenciesDown).length > 0;
    if (failing.length === 0 && !dependencyDown)
      return json(200, { status: 'ready', services, dependencies });
    if (failing.length < Object.keys(services).length)
      return json(200, {
        status: 'degraded',
        services,
        dependencies,
        ...(dependencyDown ? { dependenciesDown } : {}),
      });
    throw new AppError(
      'unavailable',
      `not ready: ${failing.map(([name]) => name).join(', ')}`,
      Object.entries(services).map(([name, status]) => ({ field: name, reason: status })),
    );
  },
};

const metrics: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics',
  responses: {
    200: { description: 'Prometheus text exposition', contentType: 'text/plain; version=0.0.4' },
  },
  async handle(_input, deps) {
    // In embedded mode the services' gRPC servers share this process: their metrics are served here too.
    const merged = Registry.merge([
      deps.metrics,
      grpcServerMetrics,
      grpcClientMetrics,
      commandMetrics,
      dependencyMetrics,
    ]);
    return { status: 200, body: await merged.metrics(), contentType: merged.contentType };
  },
};

const openapi: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/openapi.json',
  operationId: 'openapi',
  summary: 'This OpenAPI 3.1 document',
  responses: { 200: { description: 'OpenAPI document', schema: { type: 'object' } } },
  handle: async (_input, deps) => json(200, deps.openapi()),
};

export const systemRoutes: AnyRoute[] = [healthz, readyz, metrics, openapi];

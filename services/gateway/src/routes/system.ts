import { Registry } from 'prom-client';
import { AppError, grpcServerMetrics } from '@switchyard/shared';
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
  required: ['status', 'services'],
  properties: {
    status: { type: 'string', const: 'ready' },
    services: { type: 'object', additionalProperties: { type: 'string' } },
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

async function downstreamStatuses(deps: RouteDeps): Promise<Record<string, string>> {
  const targets = healthTargets(deps.clients);
  const statuses = await Promise.all(targets.map((t) => deps.checkHealth(t.address, t.service)));
  return Object.fromEntries(targets.map((t, i) => [t.name, statuses[i]]));
}

const readyz: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/readyz',
  operationId: 'readyz',
  summary: 'Readiness: every downstream service reports SERVING (503 lists each service status in details)',
  responses: { 200: { description: 'Ready', schema: Readiness } },
  errors: ['unavailable'],
  async handle(_input, deps) {
    const services = await downstreamStatuses(deps);
    const failing = Object.entries(services).filter(([, status]) => status !== 'SERVING');
    if (failing.length === 0) return json(200, { status: 'ready', services });
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
  responses: { 200: { description: 'Prometheus text exposition', contentType: 'text/plain; version=0.0.4' } },
  async handle(_input, deps) {
    // In embedded mode the services' gRPC servers share this process: their metrics are served here too.
    const merged = Registry.merge([deps.metrics, grpcServerMetrics]);
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

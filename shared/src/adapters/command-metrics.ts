import { createHash } from 'node:crypto';
import { tracingChannel } from 'node:diagnostics_channel';
import type { MongoClient } from 'mongodb';
import { Counter, Histogram, Registry } from 'prom-client';
import { bool, readEnv } from '../config/env';

/**
 * What a call costs in each dependency round trip, in this process: every Redis command, MongoDB
 * command and Kafka produce request, timed, and how long callers waited for the bus to accept an
 * event. Served on METRICS_PORT (the gateway: /metrics); `bench:gateway --hops` divides the
 * changes by the calls it made to print a call's hops.
 */
export const commandMetrics = new Registry();

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const redisCommandSeconds = new Histogram({
  name: 'redis_command_duration_seconds',
  help: 'Redis commands by command name, from sent to answered (DEPENDENCY_COMMAND_METRICS).',
  labelNames: ['command'] as const,
  buckets: BUCKETS,
  registers: [commandMetrics],
});

const mongoCommandSeconds = new Histogram({
  name: 'mongodb_command_duration_seconds',
  help: 'MongoDB commands by command name and collection, as the driver timed them (DEPENDENCY_COMMAND_METRICS).',
  labelNames: ['command', 'collection'] as const,
  buckets: BUCKETS,
  registers: [commandMetrics],
});

/** The time a publisher waited for Kafka to acknowledge its event (group commit included). */
export const eventPublishSeconds = new Histogram({
  name: 'event_publish_duration_seconds',
  help: 'Time from publish to the bus acknowledging the event (Kafka: acks=all), by topic.',
  labelNames: ['topic'] as const,
  buckets: BUCKETS,
  registers: [commandMetrics],
});

/** One produce request to Kafka (a group-committed batch of events). */
export const kafkaProduceSeconds = new Histogram({
  name: 'kafka_produce_request_duration_seconds',
  help: 'Produce requests (batches of events) sent to Kafka, from send to acknowledgement.',
  buckets: BUCKETS,
  registers: [commandMetrics],
});

export const kafkaProducedEvents = new Counter({
  name: 'kafka_produced_events_total',
  help: 'Events acknowledged by Kafka (one produce request carries one or many).',
  registers: [commandMetrics],
});

/**
 * Whether Redis and MongoDB commands are timed one by one (DEPENDENCY_COMMAND_METRICS, default
 * false: it costs a few microseconds per command, which a lean deployment need not pay).
 */
export function commandMetricsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return readEnv({ DEPENDENCY_COMMAND_METRICS: bool({ default: false }) }, env)
    .DEPENDENCY_COMMAND_METRICS;
}

interface RedisCommandContext {
  command?: string;
  /** ioredis' sanitized arguments: EVALSHA's first is the script's SHA1. */
  args?: string[];
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** Script SHA1 -> name, so scripts are counted by name ("evalsha syReserve"). */
const scriptNames = new Map<string, string>();

/** Names a Lua script in the Redis command metrics. */
export function nameRedisScript(name: string, lua: string): void {
  scriptNames.set(sha1(lua), name);
}

/** The command's name; a script's name after EVALSHA, or after EVAL (its first run on a connection). */
function redisCommandLabel(context: RedisCommandContext): string {
  const command = (context.command ?? 'unknown').toLowerCase();
  const first = context.args?.[0] ?? '';
  const script =
    command === 'evalsha'
      ? scriptNames.get(first)
      : command === 'eval'
        ? scriptNames.get(sha1(first))
        : undefined;
  return script ? `${command} ${script}` : command;
}

const redisStarts = new WeakMap<object, bigint>();
let redisTimed = false;

/**
 * Times every command of every ioredis client in this process through ioredis' own
 * diagnostics channel ("ioredis:command"), once per process.
 */
export function timeRedisCommands(): void {
  if (redisTimed) return;
  redisTimed = true;
  const finish = (context: RedisCommandContext) => {
    const started = redisStarts.get(context);
    if (started === undefined) return;
    redisStarts.delete(context);
    redisCommandSeconds.observe(
      { command: redisCommandLabel(context) },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
  };
  tracingChannel<string, RedisCommandContext>('ioredis:command').subscribe({
    start: (context) => redisStarts.set(context, process.hrtime.bigint()),
    end: () => undefined,
    asyncStart: () => undefined,
    // A rejected command publishes error, then asyncEnd too.
    asyncEnd: finish,
    error: () => undefined,
  });
}

/** Times the commands of one MongoDB client (its options must have monitorCommands: true). */
export function timeMongoCommands(client: MongoClient): void {
  const labels = new Map<number, { command: string; collection: string }>();
  client.on('commandStarted', (event) => {
    const target: unknown = event.command[event.commandName];
    labels.set(event.requestId, {
      command: event.commandName,
      collection: typeof target === 'string' ? target : '',
    });
  });
  const finish = (event: { requestId: number; commandName: string; duration: number }) => {
    const label = labels.get(event.requestId) ?? { command: event.commandName, collection: '' };
    labels.delete(event.requestId);
    mongoCommandSeconds.observe(label, event.duration / 1000);
  };
  client.on('commandSucceeded', finish);
  client.on('commandFailed', finish);
}

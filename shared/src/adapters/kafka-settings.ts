import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import { bool, num, readEnv, str } from '../config/env';

/** How a service reaches its Kafka cluster, from KAFKA_* variables (besides KAFKA_BROKERS). */
export interface KafkaSettings {
  /** Prepended to every topic name (several environments on one cluster). */
  topicPrefix: string;
  /** Replication of the topics a service creates when they do not exist yet. */
  replicationFactor: number;
  /** TLS to the brokers: true for the system CAs, or the cluster's own CA. */
  ssl?: true | ConnectionOptions;
  sasl?: SASLOptions;
  /** How consumer group members prove they are alive and how long a rebalance waits for them. */
  membership: GroupMembership;
  producer: ProducerTuning;
}

/**
 * How produce requests are formed. The bus already sends what queued while a request was out in
 * the next one (group commit), so lingering only delays a lone event; gzip trades producer and
 * broker CPU for bytes on the wire. Both off by default: see docs/benchmarks.md ("Kafka producer").
 */
export interface ProducerTuning {
  /** Wait this long before each produce request for more events to join it. */
  lingerMs: number;
  compression: 'none' | 'gzip';
}

export const DEFAULT_PRODUCER_TUNING: ProducerTuning = { lingerMs: 0, compression: 'none' };

const COMPRESSIONS = ['none', 'gzip'] as const;

/**
 * A consumer group member is evicted after sessionTimeoutMs without a heartbeat; a rebalance
 * (a member joined, e.g. a replica restarted after a kill -9) waits at most rebalanceTimeoutMs for
 * the members to rejoin and drops those that did not, a dead one included. So a restarted
 * member gets its partitions about rebalanceTimeoutMs after it asks, not after the dead member's
 * session ran out; a live member busy with one chunk for longer than that (less the heartbeat
 * that tells it of the rebalance) is dropped too and rejoins once the chunk is done: one more
 * rebalance, its uncommitted batch consumed again (consumers are idempotent by event id).
 * Stalls (a GC pause, a starved process) only matter up to the session: heartbeats go on from a
 * timer while a batch is handled.
 */
export interface GroupMembership {
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
}

/**
 * Chosen for recovery in about a second after a kill -9 (docs/benchmarks.md, recovery): the
 * session is the broker's default minimum (group.min.session.timeout.ms), what a survivor waits
 * when no replacement joins; a rebalance drops a dead member after 1 s; heartbeats every 0.3 s
 * tell live members of a rebalance in time to rejoin it.
 */
export const DEFAULT_GROUP_MEMBERSHIP: GroupMembership = {
  sessionTimeoutMs: 6_000,
  rebalanceTimeoutMs: 1_000,
  heartbeatIntervalMs: 300,
};

const SASL_MECHANISMS = ['', 'plain', 'scram-sha-256', 'scram-sha-512'] as const;

interface KafkaEnv {
  KAFKA_TOPIC_PREFIX: string;
  KAFKA_REPLICATION_FACTOR: number;
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA_FILE: string;
  KAFKA_SASL_MECHANISM: (typeof SASL_MECHANISMS)[number];
  KAFKA_SASL_USERNAME: string;
  KAFKA_SASL_PASSWORD: string;
  KAFKA_SESSION_TIMEOUT_MS: number;
  KAFKA_REBALANCE_TIMEOUT_MS: number;
  KAFKA_HEARTBEAT_INTERVAL_MS: number;
  KAFKA_LINGER_MS: number;
  KAFKA_COMPRESSION: ProducerTuning['compression'];
}

/** Reads the Kafka connection variables; throws listing what is wrong (fail fast at boot). */
export function readKafkaSettings(env: NodeJS.ProcessEnv = process.env): KafkaSettings {
  const e = readEnv<KafkaEnv>(
    {
      KAFKA_TOPIC_PREFIX: str({ default: '' }),
      // 1 suits a single local broker; production clusters set 3 (k8s/base).
      KAFKA_REPLICATION_FACTOR: num({ default: 1 }),
      KAFKA_SSL: bool({ default: false }),
      KAFKA_SSL_CA_FILE: str({ default: '' }),
      KAFKA_SASL_MECHANISM: str<KafkaEnv['KAFKA_SASL_MECHANISM']>({
        default: '',
        choices: SASL_MECHANISMS,
      }),
      KAFKA_SASL_USERNAME: str({ default: '' }),
      KAFKA_SASL_PASSWORD: str({ default: '' }),
      KAFKA_SESSION_TIMEOUT_MS: num({ default: DEFAULT_GROUP_MEMBERSHIP.sessionTimeoutMs }),
      KAFKA_REBALANCE_TIMEOUT_MS: num({ default: DEFAULT_GROUP_MEMBERSHIP.rebalanceTimeoutMs }),
      KAFKA_HEARTBEAT_INTERVAL_MS: num({ default: DEFAULT_GROUP_MEMBERSHIP.heartbeatIntervalMs }),
      KAFKA_LINGER_MS: num({ default: DEFAULT_PRODUCER_TUNING.lingerMs }),
      KAFKA_COMPRESSION: str<ProducerTuning['compression']>({
        default: DEFAULT_PRODUCER_TUNING.compression,
        choices: COMPRESSIONS,
      }),
    },
    env,
  ) as unknown as KafkaEnv;
  const problems: string[] = [];
  if (!Number.isInteger(e.KAFKA_REPLICATION_FACTOR) || e.KAFKA_REPLICATION_FACTOR < 1) {
    problems.push('KAFKA_REPLICATION_FACTOR: must be an integer >= 1');
  }
  if (e.KAFKA_SASL_MECHANISM && !(e.KAFKA_SASL_USERNAME && e.KAFKA_SASL_PASSWORD)) {
    problems.push(
      'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM',
    );
  }
  const membership: GroupMembership = {
    sessionTimeoutMs: e.KAFKA_SESSION_TIMEOUT_MS,
    rebalanceTimeoutMs: e.KAFKA_REBALANCE_TIMEOUT_MS,
    heartbeatIntervalMs: e.KAFKA_HEARTBEAT_INTERVAL_MS,
  };
  problems.push(...membershipProblems(membership));
  if (!Number.isInteger(e.KAFKA_LINGER_MS) || e.KAFKA_LINGER_MS < 0 || e.KAFKA_LINGER_MS > 1000)
    problems.push('KAFKA_LINGER_MS: must be an integer from 0 to 1000');
  let ca: string | undefined;
  if (e.KAFKA_SSL_CA_FILE) {
    try {
      ca = readFileSync(e.KAFKA_SSL_CA_FILE, 'utf8');
    } catch (error) {
      problems.push(
        `KAFKA_SSL_CA_FILE: cannot read ${e.KAFKA_SSL_CA_FILE} (${(error as Error).message})`,
      );
    }
  }
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    topicPrefix: e.KAFKA_TOPIC_PREFIX,
    replicationFactor: e.KAFKA_REPLICATION_FACTOR,
    ssl: ca ? { ca: [ca] } : e.KAFKA_SSL ? true : undefined,
    sasl: e.KAFKA_SASL_MECHANISM ? saslOptions(e) : undefined,
    membership,
    producer: { lingerMs: e.KAFKA_LINGER_MS, compression: e.KAFKA_COMPRESSION },
  };
}

/**
 * A member must be able to heartbeat several times per session, and hear of a rebalance (on a
 * heartbeat) in time to rejoin it.
 */
function membershipProblems(m: GroupMembership): string[] {
  const problems: string[] = [];
  for (const [name, value] of [
    ['KAFKA_SESSION_TIMEOUT_MS', m.sessionTimeoutMs],
    ['KAFKA_REBALANCE_TIMEOUT_MS', m.rebalanceTimeoutMs],
    ['KAFKA_HEARTBEAT_INTERVAL_MS', m.heartbeatIntervalMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 100)
      problems.push(`${name}: must be an integer >= 100`);
  }
  if (m.heartbeatIntervalMs * 3 > m.sessionTimeoutMs)
    problems.push(
      'KAFKA_HEARTBEAT_INTERVAL_MS: must be at most a third of KAFKA_SESSION_TIMEOUT_MS',
    );
  if (m.heartbeatIntervalMs * 2 > m.rebalanceTimeoutMs)
    problems.push(
      'KAFKA_HEARTBEAT_INTERVAL_MS: must be at most half of KAFKA_REBALANCE_TIMEOUT_MS',
    );
  return problems;
}

function saslOptions(e: KafkaEnv): SASLOptions {
  const credentials = { username: e.KAFKA_SASL_USERNAME, password: e.KAFKA_SASL_PASSWORD };
  switch (e.KAFKA_SASL_MECHANISM) {
    case 'scram-sha-256':
      return { mechanism: 'scram-sha-256', ...credentials };
    case 'scram-sha-512':
      return { mechanism: 'scram-sha-512', ...credentials };
    default:
      return { mechanism: 'plain', ...credentials };
  }
}

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
}

const SASL_MECHANISMS = ['', 'plain', 'scram-sha-256', 'scram-sha-512'] as const;

interface KafkaEnv {
  KAFKA_TOPIC_PREFIX: string;
  KAFKA_REPLICATION_FACTOR: number;
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA_FILE: string;
  KAFKA_SASL_MECHANISM: (typeof SASL_MECHANISMS)[number];
  KAFKA_SASL_USERNAME: string;
  KAFKA_SASL_PASSWORD: string;
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
  };
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

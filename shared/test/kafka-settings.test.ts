import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DEFAULT_GROUP_MEMBERSHIP,
  DEFAULT_PRODUCER_TUNING,
  readKafkaSettings,
} from '../src/adapters/kafka-settings';

describe('Kafka connection settings (KAFKA_* variables)', () => {
  it('defaults: no prefix, replication 1, plaintext, no SASL, the default group timing', () => {
    expect(readKafkaSettings({})).to.deep.equal({
      topicPrefix: '',
      replicationFactor: 1,
      ssl: undefined,
      sasl: undefined,
      membership: DEFAULT_GROUP_MEMBERSHIP,
      producer: DEFAULT_PRODUCER_TUNING,
    });
  });

  it('producer tuning: a linger in ms and gzip; anything else is refused by name', () => {
    expect(
      readKafkaSettings({ KAFKA_LINGER_MS: '2', KAFKA_COMPRESSION: 'gzip' }).producer,
    ).to.deep.equal({ lingerMs: 2, compression: 'gzip' });
    expect(() => readKafkaSettings({ KAFKA_LINGER_MS: '-1' })).to.throw(/KAFKA_LINGER_MS/);
    expect(() => readKafkaSettings({ KAFKA_LINGER_MS: 'soon' })).to.throw(/KAFKA_LINGER_MS/);
    expect(() => readKafkaSettings({ KAFKA_COMPRESSION: 'brotli' })).to.throw(/KAFKA_COMPRESSION/);
  });

  it('group timing: a rebalance waits far less than a session; inconsistent timings are refused', () => {
    expect(DEFAULT_GROUP_MEMBERSHIP.rebalanceTimeoutMs).to.be.below(
      DEFAULT_GROUP_MEMBERSHIP.sessionTimeoutMs,
    );
    expect(
      readKafkaSettings({
        KAFKA_SESSION_TIMEOUT_MS: '30000',
        KAFKA_REBALANCE_TIMEOUT_MS: '5000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '2000',
      }).membership,
    ).to.deep.equal({
      sessionTimeoutMs: 30000,
      rebalanceTimeoutMs: 5000,
      heartbeatIntervalMs: 2000,
    });
    expect(() =>
      readKafkaSettings({ KAFKA_SESSION_TIMEOUT_MS: '2000', KAFKA_HEARTBEAT_INTERVAL_MS: '1000' }),
    ).to.throw(/KAFKA_HEARTBEAT_INTERVAL_MS: must be at most a third of KAFKA_SESSION_TIMEOUT_MS/);
    expect(() => readKafkaSettings({ KAFKA_REBALANCE_TIMEOUT_MS: '500' })).to.throw(
      /KAFKA_HEARTBEAT_INTERVAL_MS: must be at most half of KAFKA_REBALANCE_TIMEOUT_MS/,
    );
    expect(() => readKafkaSettings({ KAFKA_REBALANCE_TIMEOUT_MS: 'soon' })).to.throw(
      /KAFKA_REBALANCE_TIMEOUT_MS/,
    );
  });

  it('replication factor, TLS with the cluster CA file and SCRAM-SHA-512', () => {
    const ca = path.join(mkdtempSync(path.join(os.tmpdir(), 'kafka-ca-')), 'ca.crt');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const settings = readKafkaSettings({
      KAFKA_TOPIC_PREFIX: 'staging.',
      KAFKA_REPLICATION_FACTOR: '3',
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: ca,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'kafka-content',
      KAFKA_SASL_PASSWORD: 'pw',
    });
    expect(settings).to.deep.equal({
      topicPrefix: 'staging.',
      replicationFactor: 3,
      ssl: { ca: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'] },
      sasl: { mechanism: 'scram-sha-512', username: 'kafka-content', password: 'pw' },
      membership: DEFAULT_GROUP_MEMBERSHIP,
      producer: DEFAULT_PRODUCER_TUNING,
    });
  });

  it('TLS with the system CAs; SASL PLAIN', () => {
    const settings = readKafkaSettings({
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
    });
    expect(settings.ssl).to.equal(true);
    expect(settings.sasl).to.deep.equal({ mechanism: 'plain', username: 'u', password: 'p' });
  });

  it('fails fast listing every problem, never echoing the password', () => {
    const attempt = () =>
      readKafkaSettings({
        KAFKA_REPLICATION_FACTOR: '0',
        KAFKA_SASL_MECHANISM: 'scram-sha-256',
        KAFKA_SASL_PASSWORD: 'secret-pw',
        KAFKA_SSL_CA_FILE: '/nonexistent/ca.crt',
      });
    expect(attempt).to.throw(
      /KAFKA_REPLICATION_FACTOR[\s\S]*KAFKA_SASL_USERNAME[\s\S]*KAFKA_SSL_CA_FILE/,
    );
    expect(attempt).to.throw().with.property('message').that.does.not.include('secret-pw');
    expect(() => readKafkaSettings({ KAFKA_SASL_MECHANISM: 'gssapi' })).to.throw(
      /KAFKA_SASL_MECHANISM/,
    );
  });
});

import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readKafkaSettings } from '../src/adapters/kafka-settings';

describe('Kafka connection settings (KAFKA_* variables)', () => {
  it('defaults: no prefix, replication 1, plaintext, no SASL', () => {
    expect(readKafkaSettings({})).to.deep.equal({
      topicPrefix: '',
      replicationFactor: 1,
      ssl: undefined,
      sasl: undefined,
    });
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

import { loadNotificationConfig } from '../src/config';
import { expect } from './chai';

const KEY = Buffer.alloc(32, 3).toString('base64');

describe('notification config: infrastructure and metrics', () => {
  it('defaults to in-memory stores, the in-process bus and metrics on 9464 (0 in embedded mode)', () => {
    const config = loadNotificationConfig({});
    expect(config).to.deep.include({
      kafkaBrokers: '',
      metricsPort: 9464,
      secretsEncryptionKey: undefined,
    });
    expect(config).to.deep.include({ mongodbUri: '', mongodbDatabase: 'switchyard_notification' });
    expect(loadNotificationConfig({ SWITCHYARD_MODE: 'embedded' }).metricsPort).to.equal(0);
    expect(
      loadNotificationConfig({ SWITCHYARD_MODE: 'embedded', METRICS_PORT: '9500' }).metricsPort,
    ).to.equal(9500);
  });

  it('reads KAFKA_BROKERS, MONGODB_URI, MONGODB_DATABASE and the encryption key', () => {
    const config = loadNotificationConfig({
      KAFKA_BROKERS: 'k1:9092,k2:9092',
      MONGODB_URI: 'mongodb://db:27017',
      MONGODB_DATABASE: 'notif',
      SECRETS_ENCRYPTION_KEY: KEY,
    });
    expect(config.kafkaBrokers).to.equal('k1:9092,k2:9092');
    expect(config).to.deep.include({ mongodbUri: 'mongodb://db:27017', mongodbDatabase: 'notif' });
    expect(config.secretsEncryptionKey!.equals(Buffer.alloc(32, 3))).to.equal(true);
  });

  it('requires SECRETS_ENCRYPTION_KEY with Mongo outside embedded mode', () => {
    expect(() => loadNotificationConfig({ MONGODB_URI: 'mongodb://db:27017' })).to.throw(
      /SECRETS_ENCRYPTION_KEY is required/,
    );
    expect(
      loadNotificationConfig({ MONGODB_URI: 'mongodb://db:27017', SWITCHYARD_MODE: 'embedded' })
        .secretsEncryptionKey,
    ).to.equal(undefined);
  });

  it('reads SECRETS_ENCRYPTION_OLD_KEYS as a comma-separated keyring, refusing a bad key or one without a current key', () => {
    const old = [Buffer.alloc(32, 4).toString('base64'), Buffer.alloc(32, 5).toString('base64')];
    const config = loadNotificationConfig({
      SECRETS_ENCRYPTION_KEY: KEY,
      SECRETS_ENCRYPTION_OLD_KEYS: ` ${old[0]}, ${old[1]} `,
    });
    expect(config.secretsEncryptionOldKeys.map((k) => k.toString('base64'))).to.deep.equal(old);
    expect(() =>
      loadNotificationConfig({ SECRETS_ENCRYPTION_KEY: KEY, SECRETS_ENCRYPTION_OLD_KEYS: 'short' }),
    ).to.throw(/SECRETS_ENCRYPTION_OLD_KEYS/);
    expect(() => loadNotificationConfig({ SECRETS_ENCRYPTION_OLD_KEYS: old[0] })).to.throw(
      /needs SECRETS_ENCRYPTION_KEY/,
    );
  });

  it('refuses a key that is not base64 of 32 bytes, without echoing it', () => {
    for (const bad of [Buffer.alloc(16).toString('base64'), 'not base64!', `${KEY}x`]) {
      expect(() => loadNotificationConfig({ SECRETS_ENCRYPTION_KEY: bad }), bad)
        .to.throw(/exactly 32 bytes/)
        .that.satisfies((error: Error) => !error.message.includes(bad));
    }
  });

  it('refuses an invalid METRICS_PORT', () => {
    expect(() => loadNotificationConfig({ METRICS_PORT: '70000' })).to.throw(/METRICS_PORT/);
  });
});

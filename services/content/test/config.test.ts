import { expect } from 'chai';
import { hostname } from 'node:os';
import { BUNDLED_REGISTRY_PATH, loadContentConfig } from '../src/config';

describe('content config', () => {
  it('has defaults', () => {
    expect(loadContentConfig({})).to.deep.equal({
      grpcHost: '0.0.0.0',
      grpcPort: 50051,
      grpcUnixSocket: '',
      defaultModel: '',
      modelRegistryPath: BUNDLED_REGISTRY_PATH,
      modelRegistryJson: '',
      localModelPath: '',
      localModelId: '',
      maxInputTokens: 32000,
      asyncConcurrency: 16,
      logLevel: 'info',
      mongodbUri: '',
      mongodbDatabase: 'switchyard_content',
      kafkaBrokers: '',
      instanceId: hostname(),
      requestLeaseMs: 300_000,
      outboxRelayIntervalMs: 1000,
      outboxPublishTimeoutMs: 2000,
      metricsPort: 9464,
      idempotencyTtlSeconds: 86_400,
    });
  });

  it('names the LOCAL_MODEL_PATH model after its file unless LOCAL_MODEL_ID says', () => {
    expect(
      loadContentConfig({ LOCAL_MODEL_PATH: '/models/Qwen2.5-0.5B-Instruct_Q4_K_M.gguf' }),
    ).to.include({
      localModelPath: '/models/Qwen2.5-0.5B-Instruct_Q4_K_M.gguf',
      localModelId: 'qwen2.5-0.5b-instruct-q4-k-m',
    });
    expect(
      loadContentConfig({ LOCAL_MODEL_PATH: '/m/x.gguf', LOCAL_MODEL_ID: 'writer' }).localModelId,
    ).to.equal('writer');
  });

  it('reads the persistence settings', () => {
    const config = loadContentConfig({
      MONGODB_URI: 'mongodb://db:27017',
      MONGODB_DATABASE: 'c1',
      KAFKA_BROKERS: 'k1:9092,k2:9092',
      INSTANCE_ID: 'content-0',
      REQUEST_LEASE_MS: '1000',
    });
    expect(config).to.include({
      mongodbUri: 'mongodb://db:27017',
      mongodbDatabase: 'c1',
      kafkaBrokers: 'k1:9092,k2:9092',
      instanceId: 'content-0',
      requestLeaseMs: 1000,
    });
    expect(() => loadContentConfig({ REQUEST_LEASE_MS: '0' })).to.throw(/REQUEST_LEASE_MS/);
    expect(
      loadContentConfig({ OUTBOX_RELAY_INTERVAL_MS: '250', OUTBOX_PUBLISH_TIMEOUT_MS: '500' }),
    ).to.include({ outboxRelayIntervalMs: 250, outboxPublishTimeoutMs: 500 });
    expect(() => loadContentConfig({ OUTBOX_RELAY_INTERVAL_MS: '0' })).to.throw(
      /OUTBOX_RELAY_INTERVAL_MS/,
    );
  });

  it('reads the environment and rejects invalid values', () => {
    expect(loadContentConfig({ GRPC_PORT: '6000', ASYNC_CONCURRENCY: '2' })).to.include({
      grpcPort: 6000,
      asyncConcurrency: 2,
    });
    expect(() => loadContentConfig({ GRPC_PORT: 'x' })).to.throw(/GRPC_PORT/);
    expect(loadContentConfig({ METRICS_PORT: '0' }).metricsPort).to.equal(0);
    expect(() => loadContentConfig({ METRICS_PORT: '70000' })).to.throw(/METRICS_PORT/);
    expect(() => loadContentConfig({ ASYNC_CONCURRENCY: '0' })).to.throw(/ASYNC_CONCURRENCY/);
    expect(() => loadContentConfig({ LOG_LEVEL: 'loud' })).to.throw(/LOG_LEVEL/);
    expect(
      loadContentConfig({
        DEFAULT_MODEL: ' gpt-4o-mini ',
        MODEL_REGISTRY_PATH: '/etc/models.json',
      }),
    ).to.include({
      defaultModel: 'gpt-4o-mini',
      modelRegistryPath: '/etc/models.json',
    });
    expect(BUNDLED_REGISTRY_PATH).to.match(/services[\\/]content[\\/]config[\\/]models\.json$/);
  });
});

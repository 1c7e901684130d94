import { expect } from './chai';
import { loadAssistantConfig } from '../src/config';

describe('assistant config', () => {
  it('has defaults', () => {
    expect(loadAssistantConfig({})).to.deep.equal({
      grpcHost: '0.0.0.0',
      grpcPort: 50052,
      grpcUnixSocket: '',
      sessionHistoryLimit: 50,
      contentAddr: '127.0.0.1:50051',
      contentDeadlineMs: 30_000,
      defaultModel: 'builtin',
      logLevel: 'info',
      mongodbUri: '',
      mongodbDatabase: 'switchyard_assistant',
      kafkaBrokers: '',
      redisUrl: '',
      outboxRelayIntervalMs: 1000,
      outboxPublishTimeoutMs: 2000,
      metricsPort: 9464,
      idempotencyTtlSeconds: 86_400,
      recommendationAddr: '127.0.0.1:50053',
      historyTokenBudget: 6000,
      messageMaxTokens: 4000,
      readCacheTtlMs: 30_000,
    });
  });

  it('reads the history budget and the shared-state Redis', () => {
    const config = loadAssistantConfig({
      HISTORY_TOKEN_BUDGET: '2000',
      REDIS_URL: ' redis://cache:6379 ',
    });
    expect(config.historyTokenBudget).to.equal(2000);
    expect(config.redisUrl).to.equal('redis://cache:6379');
    expect(() => loadAssistantConfig({ HISTORY_TOKEN_BUDGET: '10' })).to.throw(
      /HISTORY_TOKEN_BUDGET/,
    );
  });

  it('reads the largest message and rejects a useless one', () => {
    expect(loadAssistantConfig({ MESSAGE_MAX_TOKENS: '500' }).messageMaxTokens).to.equal(500);
    expect(() => loadAssistantConfig({ MESSAGE_MAX_TOKENS: '0' })).to.throw(/MESSAGE_MAX_TOKENS/);
  });

  it('reads the outbox settings and rejects invalid ones', () => {
    expect(
      loadAssistantConfig({ OUTBOX_RELAY_INTERVAL_MS: '250', OUTBOX_PUBLISH_TIMEOUT_MS: '500' }),
    ).to.deep.include({ outboxRelayIntervalMs: 250, outboxPublishTimeoutMs: 500 });
    expect(() => loadAssistantConfig({ OUTBOX_RELAY_INTERVAL_MS: '0' })).to.throw(
      /OUTBOX_RELAY_INTERVAL_MS/,
    );
  });

  it('reads the environment', () => {
    const config = loadAssistantConfig({
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '6000',
      SESSION_HISTORY_LIMIT: '10',
      CONTENT_ADDR: 'content:7000',
      CONTENT_DEADLINE_MS: '1500',
      ASSISTANT_MODEL: 'gpt-4o-mini',
      LOG_LEVEL: 'debug',
      METRICS_PORT: '0',
    });
    expect(config).to.deep.include({
      grpcHost: '127.0.0.1',
      grpcPort: 6000,
      sessionHistoryLimit: 10,
      contentAddr: 'content:7000',
      contentDeadlineMs: 1500,
      defaultModel: 'gpt-4o-mini',
      logLevel: 'debug',
      metricsPort: 0,
    });
  });

  it('reads the persistence settings', () => {
    const config = loadAssistantConfig({
      MONGODB_URI: 'mongodb://db:27017',
      MONGODB_DATABASE: 'a1',
      KAFKA_BROKERS: 'k:9092',
    });
    expect(config).to.include({
      mongodbUri: 'mongodb://db:27017',
      mongodbDatabase: 'a1',
      kafkaBrokers: 'k:9092',
    });
  });

  it('keeps the builtin engine unless ASSISTANT_MODEL names a model: DEFAULT_MODEL is content’s', () => {
    expect(loadAssistantConfig({ ASSISTANT_MODEL: ' ' }).defaultModel).to.equal('builtin');
    expect(loadAssistantConfig({ DEFAULT_MODEL: 'gpt-4o-mini' }).defaultModel).to.equal('builtin');
  });

  it('fails fast on invalid values', () => {
    expect(() => loadAssistantConfig({ GRPC_PORT: 'abc', LOG_LEVEL: 'loud' })).to.throw(
      /GRPC_PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*GRPC_PORT/,
    );
    expect(() => loadAssistantConfig({ SESSION_HISTORY_LIMIT: '1' })).to.throw(
      /SESSION_HISTORY_LIMIT/,
    );
    expect(() => loadAssistantConfig({ SESSION_HISTORY_LIMIT: '2.5' })).to.throw(
      /SESSION_HISTORY_LIMIT/,
    );
    expect(() => loadAssistantConfig({ CONTENT_DEADLINE_MS: '0' })).to.throw(/CONTENT_DEADLINE_MS/);
    expect(() => loadAssistantConfig({ METRICS_PORT: '70000' })).to.throw(/METRICS_PORT/);
  });
});

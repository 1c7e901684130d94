import { expect } from 'chai';
import { loadRecommendationConfig } from '../src/config';

describe('loadRecommendationConfig', () => {
  it('has defaults', () => {
    expect(loadRecommendationConfig({ REPLICA_ID: 'r1' })).to.deep.equal({
      grpcHost: '0.0.0.0',
      grpcPort: 50053,
      grpcUnixSocket: '',
      maxBatchSize: 1000,
      logLevel: 'info',
      mongodbUri: '',
      mongodbDatabase: 'switchyard_recommendation',
      kafkaBrokers: '',
      metricsPort: 9464,
      replicaId: 'r1',
      training: {
        algorithm: 'auto',
        easeLambda: 500,
        easeMaxItems: 2500,
        easeMinInteractions: 1000,
        knnNeighbours: 100,
        sparseEase: {
          lambda: 300,
          neighbours: 128,
          solverSteps: 3,
          rowLimit: 200,
          historyCap: 1000,
        },
      },
      decayHalfLifeDays: 0,
      rebuild: { intervalMs: 300_000, delayMs: 1000, minIntervalMs: 30_000 },
      profileCacheSize: 20_000,
      itemCacheSize: 100_000,
    });
    expect(loadRecommendationConfig({}).replicaId, 'host and pid by default').to.match(/.+-\d+$/);
  });

  it('reads the environment, accepting port 0 (ephemeral)', () => {
    const config = loadRecommendationConfig({
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      MAX_BATCH_SIZE: '50',
      LOG_LEVEL: 'debug',
      METRICS_PORT: '0',
    });
    expect(config).to.deep.include({
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      maxBatchSize: 50,
      logLevel: 'debug',
      metricsPort: 0,
    });
    const persistence = loadRecommendationConfig({
      MONGODB_URI: 'mongodb://db:27017',
      MONGODB_DATABASE: 'r1',
      KAFKA_BROKERS: 'k:9092',
    });
    expect(persistence).to.include({
      mongodbUri: 'mongodb://db:27017',
      mongodbDatabase: 'r1',
      kafkaBrokers: 'k:9092',
    });
  });

  it('fails fast listing every bad variable', () => {
    expect(() => loadRecommendationConfig({ GRPC_PORT: '70000', MAX_BATCH_SIZE: '0' })).to.throw(
      /GRPC_PORT/,
    );
    expect(() => loadRecommendationConfig({ MAX_BATCH_SIZE: '0' })).to.throw(/MAX_BATCH_SIZE/);
    expect(() => loadRecommendationConfig({ LOG_LEVEL: 'loud' })).to.throw(/LOG_LEVEL/);
    expect(() => loadRecommendationConfig({ METRICS_PORT: '70000' })).to.throw(/METRICS_PORT/);
    expect(() => loadRecommendationConfig({ RECOMMENDATION_ALGORITHM: 'svd' })).to.throw(
      /RECOMMENDATION_ALGORITHM/,
    );
    expect(() =>
      loadRecommendationConfig({
        RECOMMENDATION_EASE_LAMBDA: '0',
        RECOMMENDATION_DECAY_HALF_LIFE_DAYS: '-1',
      }),
    ).to.throw(/RECOMMENDATION_EASE_LAMBDA[\s\S]*RECOMMENDATION_DECAY_HALF_LIFE_DAYS/);
  });
});

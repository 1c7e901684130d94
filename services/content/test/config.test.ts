import { expect } from 'chai';
import { BUNDLED_REGISTRY_PATH, loadContentConfig } from '../src/config';

describe('content config', () => {
  it('has defaults', () => {
    expect(loadContentConfig({})).to.deep.equal({
      grpcHost: '0.0.0.0',
      grpcPort: 50051,
      defaultModel: '',
      modelRegistryPath: BUNDLED_REGISTRY_PATH,
      modelRegistryJson: '',
      maxInputTokens: 32000,
      asyncConcurrency: 4,
      logLevel: 'info',
    });
  });

  it('reads the environment and rejects invalid values', () => {
    expect(loadContentConfig({ GRPC_PORT: '6000', ASYNC_CONCURRENCY: '2' })).to.include({ grpcPort: 6000, asyncConcurrency: 2 });
    expect(() => loadContentConfig({ GRPC_PORT: 'x' })).to.throw(/GRPC_PORT/);
    expect(() => loadContentConfig({ ASYNC_CONCURRENCY: '0' })).to.throw(/ASYNC_CONCURRENCY/);
    expect(() => loadContentConfig({ LOG_LEVEL: 'loud' })).to.throw(/LOG_LEVEL/);
    expect(loadContentConfig({ DEFAULT_MODEL: ' gpt-4o-mini ', MODEL_REGISTRY_PATH: '/etc/models.json' })).to.include({
      defaultModel: 'gpt-4o-mini',
      modelRegistryPath: '/etc/models.json',
    });
    expect(BUNDLED_REGISTRY_PATH).to.match(/services[\\/]content[\\/]config[\\/]models\.json$/);
  });
});

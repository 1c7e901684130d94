import { expect } from 'chai';
import { loadGatewayConfig } from '../src/config';

describe('gateway config', () => {
  it('has the documented defaults', () => {
    expect(loadGatewayConfig({})).to.deep.equal({
      host: '0.0.0.0',
      port: 8080,
      contentAddr: '127.0.0.1:50051',
      assistantAddr: '127.0.0.1:50052',
      recommendationAddr: '127.0.0.1:50053',
      notificationAddr: '127.0.0.1:50054',
      grpcDeadlineMs: 30000,
      bodyLimitBytes: 1048576,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 15_000,
      keepAliveTimeoutMs: 65_000,
      devApiKey: undefined,
      devMonthlyTokenQuota: 1_000_000,
      devHardQuota: true,
      adminToken: undefined,
      defaultRequestsPerMinute: 600,
      defaultTokensPerMinute: 200_000,
      keyCacheTtlMs: 2000,
      defaultOutputTokens: 256,
      mongodbUri: '',
      mongodbDatabase: 'switchyard_gateway',
      redisUrl: '',
      idempotencyTtlSeconds: 86_400,
      idempotencyLeaseMs: 3000,
      keyMaxConcurrentRequests: 512,
      responseCacheMaxEntries: 10_000,
      responseCacheMaxBytes: 64 * 1024 * 1024,
      logLevel: 'info',
      urlPolicy: { requireHttps: true, allowPrivateNetworks: false, allowlist: [] },
      kafkaBrokers: '',
    });
  });

  it('reads the webhook URL rules notification reads (embedded mode relaxes them)', () => {
    expect(loadGatewayConfig({ SWITCHYARD_MODE: 'embedded' }).urlPolicy).to.deep.equal({
      requireHttps: false,
      allowPrivateNetworks: true,
      allowlist: [],
    });
    expect(
      loadGatewayConfig({ WEBHOOK_ALLOWLIST: '10.1.0.0/16, hooks.internal' }).urlPolicy.allowlist,
    ).to.deep.equal(['10.1.0.0/16', 'hooks.internal']);
  });

  it('reads the accounts settings', () => {
    const config = loadGatewayConfig({
      ADMIN_TOKEN: 'adm_0123456789abcdef',
      DEFAULT_RPM: '30',
      DEFAULT_TPM: '5000',
      KEY_CACHE_TTL_MS: '0',
      DEV_MONTHLY_TOKEN_QUOTA: '500',
      DEV_HARD_QUOTA: 'false',
      MONGODB_URI: 'mongodb://db:27017',
      REDIS_URL: 'redis://cache:6379',
      IDEMPOTENCY_TTL_SECONDS: '3600',
    });
    expect(config).to.include({
      adminToken: 'adm_0123456789abcdef',
      defaultRequestsPerMinute: 30,
      defaultTokensPerMinute: 5000,
      keyCacheTtlMs: 0,
      devMonthlyTokenQuota: 500,
      devHardQuota: false,
      mongodbUri: 'mongodb://db:27017',
      redisUrl: 'redis://cache:6379',
      idempotencyTtlSeconds: 3600,
    });
  });

  it('refuses a short ADMIN_TOKEN without echoing it, and non-positive limits', () => {
    const message = failure({
      ADMIN_TOKEN: 'short-secret',
      DEFAULT_RPM: '0',
      KEY_CACHE_TTL_MS: '-5',
      IDEMPOTENCY_TTL_SECONDS: '0',
    });
    expect(message)
      .to.include('ADMIN_TOKEN')
      .and.include('DEFAULT_RPM')
      .and.include('KEY_CACHE_TTL_MS')
      .and.include('IDEMPOTENCY_TTL_SECONDS');
    expect(message).to.not.include('short-secret');
  });

  it('reads the HTTP server timeouts; the headers timeout may not exceed the request timeout', () => {
    const config = loadGatewayConfig({
      GATEWAY_REQUEST_TIMEOUT_MS: '5000',
      GATEWAY_HEADERS_TIMEOUT_MS: '2000',
      GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '10000',
    });
    expect(config).to.include({
      requestTimeoutMs: 5000,
      headersTimeoutMs: 2000,
      keepAliveTimeoutMs: 10000,
    });
    expect(
      failure({ GATEWAY_REQUEST_TIMEOUT_MS: '1000', GATEWAY_HEADERS_TIMEOUT_MS: '2000' }),
    ).to.include('GATEWAY_HEADERS_TIMEOUT_MS');
    expect(failure({ GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '0' })).to.include(
      'GATEWAY_KEEP_ALIVE_TIMEOUT_MS',
    );
  });

  it('reads overrides', () => {
    const config = loadGatewayConfig({
      GATEWAY_PORT: '9000',
      CONTENT_ADDR: 'content:50051',
      BODY_LIMIT_BYTES: '2048',
      DEV_API_KEY: 'sk_devkeydevkeydevkey1',
    });
    expect(config).to.include({
      port: 9000,
      contentAddr: 'content:50051',
      bodyLimitBytes: 2048,
      devApiKey: 'sk_devkeydevkeydevkey1',
    });
  });

  function failure(env: NodeJS.ProcessEnv): string {
    try {
      loadGatewayConfig(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected loadGatewayConfig to throw');
  }

  it('fails fast on a bad port or limit', () => {
    expect(failure({ GATEWAY_PORT: 'eighty' })).to.include('GATEWAY_PORT');
    expect(failure({ BODY_LIMIT_BYTES: '0', GRPC_DEADLINE_MS: '-1' }))
      .to.include('BODY_LIMIT_BYTES')
      .and.include('GRPC_DEADLINE_MS');
  });

  it('refuses a DEV_API_KEY that is not sk_... without echoing it', () => {
    const message = failure({ DEV_API_KEY: 'hunter2-secret' });
    expect(message).to.include('DEV_API_KEY');
    expect(message).to.not.include('hunter2');
  });
});

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
      devApiKey: undefined,
      logLevel: 'info',
    });
  });

  it('reads overrides', () => {
    const config = loadGatewayConfig({ GATEWAY_PORT: '9000', CONTENT_ADDR: 'content:50051', BODY_LIMIT_BYTES: '2048', DEV_API_KEY: 'sk_devkeydevkeydevkey1' });
    expect(config).to.include({ port: 9000, contentAddr: 'content:50051', bodyLimitBytes: 2048, devApiKey: 'sk_devkeydevkeydevkey1' });
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
    expect(failure({ BODY_LIMIT_BYTES: '0', GRPC_DEADLINE_MS: '-1' })).to.include('BODY_LIMIT_BYTES').and.include('GRPC_DEADLINE_MS');
  });

  it('refuses a DEV_API_KEY that is not sk_... without echoing it', () => {
    const message = failure({ DEV_API_KEY: 'hunter2-secret' });
    expect(message).to.include('DEV_API_KEY');
    expect(message).to.not.include('hunter2');
  });
});

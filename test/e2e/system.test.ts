import { expect } from 'chai';
import { api } from '../support/http';

describe('e2e: health, readiness and OpenAPI', () => {
  it('healthz and readyz answer without a key', async () => {
    const health = await api('/healthz', { key: null });
    expect(health.status).to.equal(200);
    const ready = await api('/readyz', { key: null });
    expect(ready.status).to.equal(200);
  });

  it('serves an OpenAPI 3.1 document covering every public path', async () => {
    const res = await api('/openapi.json', { key: null });
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.match(/^3\.1/);
    const paths = Object.keys(res.body.paths);
    for (const path of [
      '/api/v2/ai/content/generate',
      '/api/v2/ai/content/transform',
      '/api/v2/ai/assistants/chat',
      '/api/v2/ai/assistants/{agent}',
      '/api/v2/ai/recommendations',
      '/api/webhooks',
      '/api/v2/requests/{requestId}',
      '/api/v2/catalog/items',
      '/api/v2/interactions',
    ]) {
      expect(paths, path).to.include(path);
    }
    const generate = res.body.paths['/api/v2/ai/content/generate'].post;
    const schema = generate.requestBody.content['application/json'].schema;
    const resolved = schema.$ref
      ? res.body.components.schemas[schema.$ref.split('/').pop()]
      : schema;
    expect(resolved.properties).to.include.keys(
      'prompt',
      'max_length',
      'tone',
      'language',
      'webhookUrl',
      'model',
    );
  });

  it('exposes Prometheus metrics', async () => {
    await api('/api/v2/models');
    const res = await api('/metrics', { key: null });
    expect(res.status).to.equal(200);
    expect(res.text).to.include('# TYPE');
    expect(res.text).to.match(
      /grpc_server_handled_total\{[^}]*grpc_method="ListModels"[^}]*grpc_code="OK"\} [1-9]/,
    );
  });
});

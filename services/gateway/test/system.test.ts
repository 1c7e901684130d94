import { expect } from 'chai';
import { dependencyHealth } from '@switchyard/shared';
import { sampleDelivery } from './doubles';
import { compileSchema } from '../src/schemas/validator';
import { routeTable } from '../src/routes';
import { routePaths } from '../src/routing';
import { startHarness, resetDoubles, type Harness } from './harness';
import { expectShape } from './shape';
import { AsyncRequestStatus, ModelList } from '../src/schemas/content';

type Doc = any;

function resolveRef(doc: Doc, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Doc, key) => (node === undefined ? undefined : node[key]), doc);
}

function collectRefs(node: unknown, refs: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, refs));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') refs.push(value);
      else collectRefs(value, refs);
    }
  }
  return refs;
}

describe('gateway system routes, requests and models', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it('GET /healthz: 200 {status: ok} with X-Request-Id', async () => {
    const reply = await h.send('GET', '/healthz', { auth: false });
    expect(reply.body).to.deep.equal({ status: 'ok' });
    expect(reply.requestId).to.match(/^req_[0-9a-z]+$/);
  });

  it('GET /readyz: 200 when the four services are SERVING', async () => {
    const reply = await h.send('GET', '/readyz', { auth: false });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({
      status: 'ready',
      services: {
        content: 'SERVING',
        assistant: 'SERVING',
        recommendation: 'SERVING',
        notification: 'SERVING',
      },
      dependencies: {},
    });
  });

  it('GET /readyz: 200 degraded naming a shared dependency that is down (the replica stays in rotation)', async () => {
    const degraded = await startHarness({
      doubles: h.doubles,
      dependencies: () => ({ redis: 'down', mongodb: 'up', kafka: 'up' }),
    });
    try {
      const reply = await degraded.send('GET', '/readyz', { auth: false });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.include({ status: 'degraded' });
      expect(reply.body.dependencies).to.deep.equal({ redis: 'down', mongodb: 'up', kafka: 'up' });
    } finally {
      await degraded.stop();
    }
  });

  it('GET /readyz: 200 degraded naming the service that sees a dependency down (its routes answer 503)', async () => {
    // The doubles run in this process: each reports this process's dependencies over grpc.health.v1.
    const probe = dependencyHealth.probe('kafka');
    try {
      probe.report(false);
      const reply = await h.send('GET', '/readyz', { auth: false });
      expect(reply.status).to.equal(200);
      expect(reply.body.status).to.equal('degraded');
      expect(reply.body.dependencies).to.deep.equal({ kafka: 'down' });
      expect(reply.body.dependenciesDown).to.deep.equal({
        content: ['kafka'],
        assistant: ['kafka'],
        recommendation: ['kafka'],
        notification: ['kafka'],
      });
      probe.report(true);
      const back = await h.send('GET', '/readyz', { auth: false });
      expect(back.body).to.include({ status: 'ready' });
      expect(back.body.dependencies).to.deep.equal({ kafka: 'up' });
      expect(back.body).not.to.have.property('dependenciesDown');
    } finally {
      probe.close();
    }
    const unused = await h.send('GET', '/readyz', { auth: false });
    expect(unused.body.dependencies).to.deep.equal({});
  });

  it('GET /metrics: switchyard_dependency_up per dependency this process uses', async () => {
    const probe = dependencyHealth.probe('redis');
    try {
      probe.report(false);
      const down = (await h.send('GET', '/metrics', { auth: false })).body as string;
      expect(down).to.match(/^switchyard_dependency_up\{dependency="redis"\} 0$/m);
      probe.report(true);
      const up = (await h.send('GET', '/metrics', { auth: false })).body as string;
      expect(up).to.match(/^switchyard_dependency_up\{dependency="redis"\} 1$/m);
    } finally {
      probe.close();
    }
  });

  it('GET /api/v2/requests/:requestId maps the async request to camelCase', async () => {
    const reply = await h.send('GET', '/api/v2/requests/req_abc');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({
      requestId: 'req_abc',
      status: 'completed',
      operation: 'content.generate',
      createdAt: '2026-11-21T15:04:47.184Z',
      completedAt: '2026-11-21T15:04:47.184Z',
      result: 'the text',
      model: 'default-model',
      usage: { totalTokens: 46 },
      delivery: { state: 'failed', attempts: 2 },
    });
    expectShape(reply.body, AsyncRequestStatus);
    expect(h.doubles.content.last('GetRequest').request).to.deep.equal({ request_id: 'req_abc' });
    expect(h.doubles.notification.last('ListDeliveries').request).to.include({
      webhook_id: 'callback',
      event_id: 'evt_req_abc_result',
    });
  });

  it('GET /api/v2/requests/:requestId: processing while the result callback is pending, with its delivery state (issue 10)', async () => {
    h.doubles.notification.on('ListDeliveries', async () => ({
      deliveries: [{ ...sampleDelivery, status: 'pending', next_attempt_at: 'T2' }],
    }));
    const pending = await h.send('GET', '/api/v2/requests/req_abc');
    expect(pending.body).to.include({ status: 'processing' });
    expect(pending.body).to.not.have.any.keys('result', 'usage', 'completedAt');
    expect(pending.body.delivery).to.deep.equal({
      state: 'pending',
      attempts: 2,
      nextAttemptAt: 'T2',
    });
    expectShape(pending.body, AsyncRequestStatus);
    h.doubles.notification.on('ListDeliveries', async () => ({
      deliveries: [{ ...sampleDelivery, status: 'succeeded' }, sampleDelivery],
    }));
    const delivered = await h.send('GET', '/api/v2/requests/req_abc');
    expect(delivered.body).to.include({ status: 'completed', result: 'the text' });
    expect(delivered.body.delivery).to.deep.equal({ state: 'delivered', attempts: 4 });
  });

  it('GET /api/v2/requests/:requestId: processing has no result/usage, failed carries the error', async () => {
    h.doubles.content.on('GetRequest', async (req) => ({
      request_id: req.request_id,
      status: 'processing',
      operation: 'content.generate',
      created_at: 'T',
      completed_at: '',
      result: '',
      model: '',
      total_tokens: 0,
      error: null,
      webhook_url: '',
    }));
    const processing = await h.send('GET', '/api/v2/requests/req_p');
    expect(processing.body).to.deep.equal({
      requestId: 'req_p',
      status: 'processing',
      operation: 'content.generate',
      createdAt: 'T',
    });
    h.doubles.content.on('GetRequest', async (req) => ({
      request_id: req.request_id,
      status: 'failed',
      operation: 'content.generate',
      created_at: 'T',
      completed_at: 'U',
      result: '',
      model: 'm',
      total_tokens: 0,
      error: { code: 'upstream_error', message: 'provider failed' },
      webhook_url: '',
    }));
    const failed = await h.send('GET', '/api/v2/requests/req_f');
    expect(failed.body).to.deep.equal({
      requestId: 'req_f',
      status: 'failed',
      operation: 'content.generate',
      createdAt: 'T',
      completedAt: 'U',
      model: 'm',
      error: { code: 'upstream_error', message: 'provider failed' },
    });
  });

  it('GET /api/v2/models lists models in camelCase', async () => {
    const reply = await h.send('GET', '/api/v2/models');
    expect(reply.body).to.deep.equal({
      models: [
        {
          id: 'gpt-small',
          provider: 'openai',
          capabilities: ['generate', 'transform'],
          aliases: ['small'],
          inputPricePerMillion: 0.15,
          outputPricePerMillion: 0.6,
          contextWindow: 128000,
          maxOutputTokens: 16384,
          isDefault: true,
        },
      ],
    });
    expectShape(reply.body, ModelList);
  });

  it('a path with a trailing slash or in another case is its route, as the router matches it', async () => {
    for (const path of ['/api/v2/models/', '/API/V2/Models']) {
      const reply = await h.send('GET', path);
      expect(reply.status, path).to.equal(200);
      expect(reply.body.models[0].id, path).to.equal('gpt-small');
    }
  });

  it('unknown path: 404 not_found error body', async () => {
    const reply = await h.send('GET', '/api/v3/whatever', { auth: false });
    expect(reply.status).to.equal(404);
    expect(reply.body).to.deep.equal({
      error: { code: 'not_found', message: 'no route for GET /api/v3/whatever', details: [] },
      request_id: reply.requestId,
    });
  });

  it('wrong method on a known path: 405 method_not_allowed with Allow', async () => {
    const reply = await h.send('DELETE', '/api/v2/ai/content/generate');
    expect(reply.status).to.equal(405);
    expect(reply.headers.get('allow')).to.equal('POST');
    expect(reply.body.error.code).to.equal('method_not_allowed');
    expect(reply.body.request_id).to.equal(reply.requestId);
    const item = await h.send('PUT', '/api/v2/catalog/items/x');
    expect(item.headers.get('allow')!.split(', ')).to.have.members(['HEAD', 'GET', 'DELETE']);
  });

  it('GET /metrics counts requests by route template and status', async () => {
    await h.send('GET', '/api/v2/catalog/items/abc');
    await h.send('GET', '/nowhere', { auth: false });
    const reply = await h.send('GET', '/metrics', { auth: false });
    expect(reply.headers.get('content-type')).to.match(/^text\/plain/);
    expect(reply.body).to.match(
      /http_requests_total\{method="GET",route="\/api\/v2\/catalog\/items\/:itemId",status="200"\} 1/,
    );
    expect(reply.body).to.match(
      /http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/,
    );
    expect(reply.body).to.include('http_request_duration_seconds_bucket');
    expect(reply.body).to.include('process_cpu_user_seconds_total');
  });

  describe('GET /openapi.json', () => {
    let doc: Doc;
    before(async () => (doc = (await h.send('GET', '/openapi.json', { auth: false })).body));

    it('is OpenAPI 3.1 with the X-API-Key security scheme and the error schema', () => {
      expect(doc.openapi).to.equal('3.1.0');
      expect(doc.info.title).to.be.a('string');
      expect(doc.components.securitySchemes.apiKey).to.include({
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
      });
      expect(doc.components.securitySchemes.apiKey.description).to.include('X-API-Key <key>');
      expect(doc.components.schemas.ErrorResponse.required).to.deep.equal(['error', 'request_id']);
    });

    it('describes every route of the table (aliases included) with a unique operationId', () => {
      const ids = new Set<string>();
      for (const route of routeTable) {
        for (const path of routePaths(route)) {
          const operation =
            doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
          expect(operation, `${route.method} ${path}`).to.be.an('object');
          expect(ids.has(operation.operationId), operation.operationId).to.equal(false);
          ids.add(operation.operationId);
          const openAi = path.startsWith('/v1/');
          const security =
            route.auth === 'admin'
              ? [{ adminToken: [] }, { adminTokenHeader: [] }]
              : route.auth
                ? openAi
                  ? [{ bearerApiKey: [] }, { apiKey: [] }]
                  : [{ apiKey: [] }]
                : [];
          expect(operation.security).to.deep.equal(security);
          for (const name of path.match(/:(\w+)/g) ?? []) {
            expect(operation.parameters.map((p: { name: string }) => p.name)).to.include(
              name.slice(1),
            );
          }
        }
      }
      const documented = Object.values(doc.paths).reduce(
        (n: number, item) => n + Object.keys(item as object).length,
        0,
      );
      expect(documented).to.equal(ids.size);
    });

    it('embeds the exact request schemas ajv validates with', () => {
      const generate = doc.paths['/api/v2/ai/content/generate'].post;
      expect(generate.requestBody.content['application/json'].schema).to.deep.equal({
        $ref: '#/components/schemas/GenerateContentRequest',
      });
      const schema = doc.components.schemas.GenerateContentRequest;
      expect(schema.required).to.deep.equal(['prompt']);
      expect(schema.additionalProperties).to.equal(false);
      expect(schema.properties.max_length).to.include({
        type: 'integer',
        minimum: 1,
        maximum: 32768,
      });
      // 409: Idempotency-Key conflicts (generate is idempotent); 431: any request's headers.
      expect(generate.responses).to.have.keys(
        '200',
        '202',
        '400',
        '401',
        '403',
        '409',
        '413',
        '415',
        '422',
        '429',
        '431',
        '500',
        '502',
        '503',
        '504',
      );
    });

    it('resolves every $ref, and every component schema compiles', () => {
      for (const ref of collectRefs(doc)) expect(resolveRef(doc, ref), ref).to.not.equal(undefined);
      for (const [name, schema] of Object.entries(doc.components.schemas)) {
        expect(() => compileSchema(schema as Record<string, unknown>), name).to.not.throw();
      }
    });
  });
});

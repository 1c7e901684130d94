import { expect } from 'chai';
import { UsageRoutes } from '@switchyard/shared';
import { bucketsByPublicPath, publicPathOf } from '../src/metering/usage-routes';
import { usageReport } from './doubles';
import { resetDoubles, startHarness, type Harness } from './harness';

describe('gateway GET /api/v2/usage', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it("maps notification.GetUsage for the caller's organization", async () => {
    h.doubles.notification.on('GetUsage', async (req, ctx) =>
      usageReport(ctx.organization, req.period, 300),
    );
    const reply = await h.send('GET', '/api/v2/usage?period=2026-11&days=7');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({
      organization: 'org_test',
      period: '2026-11',
      periodStart: '2026-11-01T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
      quota: 1000,
      used: 300,
      remaining: 700,
      hardQuota: true,
      cost: 0.0123,
      calls: 3,
      thresholdShares: [0.9, 1],
      byModel: [
        { model: 'gpt-small', tokensInput: 100, tokensOutput: 200, cost: 0.0123, calls: 3 },
      ],
      byEndpoint: [
        {
          endpoint: '/api/v2/ai/content/generate',
          tokensInput: 100,
          tokensOutput: 200,
          cost: 0.0123,
          calls: 3,
        },
      ],
      daily: [{ date: '2026-11-21', tokensInput: 100, tokensOutput: 200, cost: 0.0123, calls: 3 }],
      refused: {
        calls: 7,
        byReason: [
          { reason: 'quota', calls: 5 },
          { reason: 'request_rate', calls: 2 },
        ],
        daily: [
          { date: '2026-11-20', reason: 'quota', calls: 1 },
          { date: '2026-11-21', reason: 'quota', calls: 4 },
          { date: '2026-11-21', reason: 'request_rate', calls: 2 },
        ],
      },
      cache: { hits: 0, tokensSaved: 0 },
      byKey: [{ keyId: 'key_a', tokensInput: 100, tokensOutput: 200, cost: 0.0123, calls: 3 }],
      byTeam: [{ teamId: 'team_a', tokensInput: 100, tokensOutput: 200, cost: 0.0123, calls: 3 }],
      byEndUser: [{ endUser: 'ann', tokensInput: 40, tokensOutput: 60, cost: 0.004, calls: 1 }],
    });
    const call = h.doubles.notification.last('GetUsage');
    expect(call.request).to.deep.equal({ period: '2026-11', days: 7 });
    expect(call.context).to.include({
      organization: 'org_test',
      keyId: h.record.keyId,
      requestId: reply.requestId,
    });
  });

  it("reads any organization's report for the administrator, 404 for an unknown one", async () => {
    h.doubles.notification.on('GetUsage', async (req, ctx) =>
      usageReport(ctx.organization, req.period, 10),
    );
    await h.admin('POST', '/api/v2/admin/organizations', {
      id: 'other-org',
      name: 'Other',
      monthlyTokenQuota: 1000,
    });
    const reply = await h.admin('GET', '/api/v2/admin/organizations/other-org/usage?days=7');
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body).to.deep.include({ organization: 'other-org', used: 10 });
    expect(h.doubles.notification.last('GetUsage')).to.deep.include({
      request: { period: '', days: 7 },
    });
    expect(h.doubles.notification.last('GetUsage').context.organization).to.equal('other-org');
    expect((await h.admin('GET', '/api/v2/admin/organizations/nobody/usage')).status).to.equal(404);
    expect((await h.send('GET', '/api/v2/admin/organizations/other-org/usage')).status).to.equal(
      403,
    );
  });

  it('defaults to the current period and 30 days', async () => {
    expect((await h.send('GET', '/api/v2/usage')).status).to.equal(200);
    expect(h.doubles.notification.last('GetUsage').request).to.deep.equal({ period: '', days: 30 });
  });

  it('validates period and days, and needs a key', async () => {
    for (const query of ['period=2026-13', 'period=26-11', 'days=0', 'days=91', 'other=1']) {
      const reply = await h.send('GET', `/api/v2/usage?${query}`);
      expect(reply.status, query).to.equal(400);
    }
    expect((await h.send('GET', '/api/v2/usage', { auth: false })).status).to.equal(401);
  });

  it('is in the OpenAPI document, as are the admin routes with their own security scheme', async () => {
    const doc = (await h.send('GET', '/openapi.json', { auth: false })).body;
    expect(doc.paths['/api/v2/usage'].get.operationId).to.equal('getUsage');
    expect(doc.components.schemas.UsageReport.required).to.include.members([
      'used',
      'remaining',
      'byModel',
      'byEndpoint',
      'daily',
    ]);
    const create = doc.paths['/api/v2/admin/organizations'].post;
    expect(create.security).to.deep.equal([{ adminToken: [] }, { adminTokenHeader: [] }]);
    expect(create.responses).to.have.property('403');
    expect(doc.components.securitySchemes.adminToken).to.include({
      type: 'http',
      scheme: 'bearer',
    });
    expect(doc.components.securitySchemes.adminTokenHeader).to.include({
      type: 'apiKey',
      in: 'header',
      name: 'X-Admin-Token',
    });
    expect(doc.paths['/api/v2/admin/keys/{keyId}/rotate'].post.operationId).to.equal(
      'adminRotateKey',
    );
  });
});

describe('usage routes as users see them', () => {
  const bucket = (key: string, tokens: number, cost: number, calls: number) => ({
    key,
    tokens_input: tokens,
    tokens_output: 0,
    cost,
    calls,
  });

  it('shows every route by the path it is called on', () => {
    expect(Object.values(UsageRoutes).map((route) => publicPathOf(route))).to.deep.equal([
      '/api/v2/ai/content/generate',
      '/api/v2/ai/content/transform',
      '/api/v2/knowledge (embeddings)',
      '/api/v2/ai/assistants/',
      '/v1/chat/completions',
      '/v1/embeddings',
      '/api/v2/ai/recommendations',
      'response cache (embeddings)',
    ]);
    expect(publicPathOf('assistant.chat:support')).to.equal('/api/v2/ai/assistants/support');
    expect(publicPathOf('assistant.chat:my:bot')).to.equal('/api/v2/ai/assistants/my:bot');
  });

  it('keeps paths recorded before routes, and shows a route it does not know by its name', () => {
    expect(publicPathOf('/api/v2/ai/content/generate')).to.equal('/api/v2/ai/content/generate');
    expect(publicPathOf('/api/v2/ai/assistants/support')).to.equal('/api/v2/ai/assistants/support');
    expect(publicPathOf('speech.transcribe')).to.equal('speech.transcribe');
    expect(publicPathOf('constructor')).to.equal('constructor');
  });

  it('sums usage from before and after routes into one line per path, most tokens first', () => {
    expect(
      bucketsByPublicPath([
        bucket('content.transform', 50, 0.2, 1),
        bucket('/api/v2/ai/content/generate', 30, 0.1, 2),
        bucket('content.generate', 40, 0.2, 3),
        bucket('assistant.chat:support', 5, 0, 1),
      ]),
    ).to.deep.equal([
      bucket('/api/v2/ai/content/generate', 70, 0.3, 5),
      bucket('/api/v2/ai/content/transform', 50, 0.2, 1),
      bucket('/api/v2/ai/assistants/support', 5, 0, 1),
    ]);
  });
});

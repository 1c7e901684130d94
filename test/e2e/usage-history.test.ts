import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createEvent } from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import { api, callApi, type ApiOptions } from '../support/http';
import { mesh } from '../support/mesh';

const GENERATE = '/api/v2/ai/content/generate';
const SUPPORT = '/api/v2/ai/assistants/support';

interface Bucket {
  endpoint: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
  calls: number;
}

interface Report {
  used: number;
  calls: number;
  byEndpoint: Bucket[];
}

/**
 * Services record usage under route names (content.generate, assistant.chat); the usage report
 * shows the paths users call. Usage recorded by versions before routes (events naming the path,
 * still in outboxes, topics and the ledger after an upgrade) is shown on the same lines: a month's
 * history keeps its face.
 */
describe('e2e: usage by route, before and after routes', function () {
  this.timeout(60_000);
  let key: string;
  let organization: string;

  before(async () => {
    const m = await mesh();
    const admin = { authorization: `Bearer ${m.adminToken}`, key: null };
    organization = `usage-history-${randomUUID().slice(0, 8)}`;
    const created = await api('/api/v2/admin/organizations', {
      ...admin,
      body: { id: organization, name: 'Usage history', monthlyTokenQuota: 1_000_000 },
    });
    expect(created.status, created.text).to.equal(201);
    const issued = await api(`/api/v2/admin/organizations/${organization}/keys`, {
      ...admin,
      body: { name: 'e2e' },
    });
    expect(issued.status, issued.text).to.equal(201);
    key = issued.body.key as string;
  });

  const call = async (path: string, options?: ApiOptions) =>
    callApi((await mesh()).gatewayUrl, key, path, options);
  const report = async () => (await call('/api/v2/usage')).body as Report;
  const line = (r: Report, endpoint: string) => r.byEndpoint.find((b) => b.endpoint === endpoint);

  /** A usage.recorded as content and assistant published it before routes: the path, no route. */
  async function recordedBeforeRoutes(endpoint: string, tokensInput: number, tokensOutput: number) {
    await (
      await mesh()
    ).bus.publish(
      createEvent('usage.recorded', {
        source: endpoint === GENERATE ? 'content' : 'assistant',
        organization,
        data: {
          requestId: `req_before_routes_${randomUUID()}`,
          keyId: 'key_before_routes',
          endpoint,
          model: 'builtin',
          tokensInput,
          tokensOutput,
          cost: 0.25,
          outcome: 'succeeded',
        },
      }),
    );
  }

  it('shows usage recorded before routes and after them on one line per path', async () => {
    await recordedBeforeRoutes(GENERATE, 40, 60);
    await recordedBeforeRoutes(SUPPORT, 7, 3);
    const before = await waitFor(async () => {
      const r = await report();
      return r.used === 110 ? r : undefined;
    }, 10_000);
    expect(before.byEndpoint.map((b) => [b.endpoint, b.calls])).to.deep.equal([
      [GENERATE, 1],
      [SUPPORT, 1],
    ]);

    const generated = await call(GENERATE, {
      body: { prompt: 'Write a tagline for a bicycle bell', max_length: 40 },
    });
    expect(generated.status, generated.text).to.equal(200);
    const replied = await call(SUPPORT, {
      body: {
        user_id: 'u_usage',
        session_id: `s_${randomUUID()}`,
        messages: [{ role: 'user', content: 'Where is my order?' }],
      },
    });
    expect(replied.status, replied.text).to.equal(200);
    const generateTokens = generated.body.usage.tokens_input + generated.body.usage.tokens_output;
    const supportTokens = replied.body.usage.tokens_used as number;

    const after = await waitFor(async () => {
      const r = await report();
      return r.calls === 4 ? r : undefined;
    }, 10_000);
    expect(after.used).to.equal(110 + generateTokens + supportTokens);
    expect(after.byEndpoint.map((b) => b.endpoint)).to.have.members([GENERATE, SUPPORT]);
    const generate = line(after, GENERATE)!;
    expect(generate.calls).to.equal(2);
    expect(generate.tokensInput + generate.tokensOutput).to.equal(100 + generateTokens);
    expect(generate.cost).to.equal(0.25 + generated.body.usage.cost);
    const support = line(after, SUPPORT)!;
    expect(support.calls).to.equal(2);
    expect(support.tokensInput + support.tokensOutput).to.equal(10 + supportTokens);
  });
});

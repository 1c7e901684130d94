import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { consoleOrganization, issueKey } from '../support/console';
import { callApi } from '../support/http';

const GENERATE = '/api/v2/ai/content/generate';

/** The request log: each billed call from the usage ledger, as GET /api/v2/usage/calls lists it. */
describe('e2e: the request log (GET /api/v2/usage/calls)', function () {
  this.timeout(60_000);

  it('lists billed calls newest first with key, model, tokens and request id, a page at a time and by key', async () => {
    const org = await consoleOrganization();
    const otherKey = await issueKey(org, 'batch jobs');
    const made: Array<{ requestId: string; key: 'first' | 'other'; tokens: number }> = [];
    for (const [prompt, key] of [
      ['A tagline for a bicycle bell', 'first'],
      ['A tagline for a rain jacket', 'other'],
      ['A tagline for a tea shop', 'first'],
    ] as const) {
      const reply = await callApi(org.gatewayUrl, key === 'first' ? org.key : otherKey, GENERATE, {
        body: { prompt, max_length: 30 },
      });
      expect(reply.status, reply.text).to.equal(200);
      made.push({
        requestId: reply.headers.get('x-request-id')!,
        key,
        tokens: reply.body.usage.tokens_input + reply.body.usage.tokens_output,
      });
    }
    const all = await waitFor(async () => {
      const page = await org.api('/api/v2/usage/calls');
      return page.body.calls?.length === 3 ? page.body : undefined;
    }, 10_000);
    expect(all.next).to.equal(null);
    expect(all.calls.map((c: any) => c.requestId)).to.deep.equal(
      made.map((m) => m.requestId).reverse(),
    );
    const newest = all.calls[0];
    expect(newest).to.include({
      endpoint: GENERATE,
      model: 'builtin',
      keyId: org.keyId,
      outcome: 'succeeded',
    });
    expect(newest.tokensInput + newest.tokensOutput).to.equal(made[2]!.tokens);
    expect(Date.parse(newest.time)).to.be.closeTo(Date.now(), 60_000);
    const otherKeyId = all.calls[1].keyId;
    expect(otherKeyId).to.be.a('string').and.not.equal(org.keyId);

    // Two pages of two and one.
    const first = await org.api('/api/v2/usage/calls?limit=2');
    expect(first.body.calls.map((c: any) => c.id)).to.deep.equal(
      all.calls.slice(0, 2).map((c: any) => c.id),
    );
    const second = await org.api(
      `/api/v2/usage/calls?limit=2&before=${encodeURIComponent(first.body.next)}`,
    );
    expect(second.body.calls.map((c: any) => c.id)).to.deep.equal([all.calls[2].id]);
    expect(second.body.next).to.equal(null);
    // One key's calls.
    const byKey = await org.api(`/api/v2/usage/calls?keyId=${encodeURIComponent(otherKeyId)}`);
    expect(byKey.body.calls.map((c: any) => c.requestId)).to.deep.equal([made[1]!.requestId]);
    const bad = await org.api('/api/v2/usage/calls?before=not-a-cursor');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details[0].field).to.equal('/before');
  });
});

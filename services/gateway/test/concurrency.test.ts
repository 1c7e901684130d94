import { expect } from 'chai';
import { issueApiKey } from '../src/auth/api-keys';
import { resetDoubles, startHarness, type Harness, type Reply } from './harness';

/** Issue 10: one key cannot hold all of a gateway's capacity, whatever its per-minute limits. */
describe('gateway per-key concurrency limit (KEY_MAX_CONCURRENT_REQUESTS)', () => {
  let h: Harness;
  let release: () => void = () => undefined;
  before(async () => (h = await startHarness({ keyMaxConcurrentRequests: 2 })));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  function holdListModels(): void {
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.doubles.content.on('ListModels', async () => {
      await gate;
      return { models: [] };
    });
  }

  async function untilCalls(count: number): Promise<void> {
    while (h.doubles.content.calls.filter((c) => c.method === 'ListModels').length < count)
      await new Promise((r) => setTimeout(r, 5));
  }

  it('answers 429 rate_limited (Retry-After) to a third request in progress, serves other keys, and frees the slot when one finishes', async () => {
    holdListModels();
    const held: Array<Promise<Reply>> = [
      h.send('GET', '/api/v2/models'),
      h.send('GET', '/api/v2/models'),
    ];
    await untilCalls(2);
    const third = await h.send('GET', '/api/v2/models');
    expect(third.status).to.equal(429);
    expect(third.body.error.code).to.equal('rate_limited');
    expect(third.body.error.details[0]).to.include({ reason: 'concurrent requests', limit: 2 });
    expect(third.headers.get('retry-after')).to.equal('1');
    const { key: otherKey } = await issueApiKey(h.apiKeys, 'org_other');
    const other = h.send('GET', '/api/v2/models', { key: otherKey });
    await untilCalls(3);
    release();
    expect((await Promise.all([...held, other])).map((r) => r.status)).to.deep.equal([
      200, 200, 200,
    ]);
    expect((await h.send('GET', '/api/v2/models')).status).to.equal(200);
  });

  it('counts a request until its connection closes, even when the client leaves early', async () => {
    holdListModels();
    const controllers = [new AbortController(), new AbortController()];
    const calls = controllers.map((c) =>
      fetch(`${h.baseUrl}/api/v2/models`, {
        headers: { authorization: `X-API-Key ${h.key}` },
        signal: c.signal,
      }).catch(() => undefined),
    );
    await untilCalls(2);
    for (const controller of controllers) controller.abort();
    await Promise.all(calls);
    release();
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      status = (await h.send('GET', '/api/v2/models')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 10));
    }
    expect(status, 'slots of aborted calls are given back').to.equal(200);
  });
});

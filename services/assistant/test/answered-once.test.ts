import { expect } from './chai';
import { InMemoryAnswerStore } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { CONTEXT, makeReply, request } from './helpers';

describe('Reply answered once per Idempotency-Key', () => {
  const withAnswers = () =>
    makeReply(50, () => ({
      answers: { store: new InMemoryAnswerStore(), ttlSeconds: 60, logger: silentLogger() },
    }));
  const ask = request('chat', [{ role: 'user', content: 'What can you do?' }], {
    session_id: 'retry-session',
  });

  it('a retry with the same key gets the first reply: the session and the bill are not touched again', async () => {
    const { reply, bus } = withAnswers();
    const first = await reply(ask, { ...CONTEXT, requestId: 'req_first', idempotencyKey: 'k-1' });
    const retry = await reply(ask, { ...CONTEXT, requestId: 'req_retry', idempotencyKey: 'k-1' });
    expect(retry).to.deep.equal(first);
    expect(bus.published.filter((e) => e.type === 'usage.recorded')).to.have.length(1);
  });

  it('bills a reply run twice (its answer lost before it was kept) under one usage event id', async () => {
    const { reply, bus } = makeReply();
    await reply(ask, { ...CONTEXT, requestId: 'req_a', idempotencyKey: 'lost' });
    await reply(
      request('chat', [{ role: 'user', content: 'What can you do?' }], {
        session_id: 'other-session',
      }),
      { ...CONTEXT, requestId: 'req_b', idempotencyKey: 'lost' },
    );
    const ids = bus.published.filter((e) => e.type === 'usage.recorded').map((e) => e.id);
    expect(ids).to.have.length(2);
    expect(ids[0]).to.equal(ids[1]);
  });

  it('without a key or request id (a direct call), every call is its own', async () => {
    const { reply, bus } = withAnswers();
    await reply(ask, { ...CONTEXT, requestId: '' });
    await reply(ask, { ...CONTEXT, requestId: '' });
    const ids = bus.published.filter((e) => e.type === 'usage.recorded').map((e) => e.id);
    expect(new Set(ids).size).to.equal(2);
  });
});

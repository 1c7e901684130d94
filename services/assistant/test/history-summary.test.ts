import { AppError, type CallContext } from '@switchyard/shared';
import { summaryEnd, type Summarizer } from '../src/conversation/history-summary';
import type { ChatMessage } from '../src/store/sessions/port';
import { expect } from './chai';
import { CONTEXT, makeReply, request } from './helpers';

const said = (n: number): ChatMessage[] =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `turn ${i}`,
  }));

/** Records what it was asked to fold; answers with the turns' numbers. */
class RecordingSummarizer implements Summarizer {
  readonly calls: Array<{ previous?: string; turns: string[]; model: string }> = [];
  failing = false;

  async summarize(
    previous: string | undefined,
    turns: ChatMessage[],
    model: string,
    _context: CallContext,
  ) {
    if (this.failing) throw new Error('summarizer down');
    this.calls.push({ previous, turns: turns.map((t) => t.content), model });
    const text = [previous, `covered ${turns.map((t) => t.content.replace('turn ', '')).join(',')}`]
      .filter(Boolean)
      .join('; ');
    return { text, model, tokensInput: 0, tokensOutput: 0, cost: 0 };
  }
}

describe('history summary', () => {
  it('folds the turns past the kept history (the reply counts) and past the token budget, never the latest message', () => {
    expect(summaryEnd({ messages: said(5), historyLimit: 10, systemTokens: 0 })).to.equal(0);
    expect(summaryEnd({ messages: said(11), historyLimit: 10, systemTokens: 0 })).to.equal(2);
    expect(
      summaryEnd({
        messages: said(11),
        historyLimit: 10,
        systemTokens: 0,
        summary: { text: 's', covered: 4 },
      }),
    ).to.equal(4);
    const long: ChatMessage[] = [
      ...Array.from({ length: 6 }, (_, i) => ({
        role: 'user' as const,
        content: `${i} ${'word '.repeat(100)}`,
      })),
      { role: 'user', content: 'latest' },
    ];
    const end = summaryEnd({ messages: long, historyLimit: 50, systemTokens: 50, budget: 600 });
    expect(end).to.be.within(1, 6);
    expect(
      summaryEnd({ messages: long, historyLimit: 50, systemTokens: 5000, budget: 600 }),
    ).to.equal(6);
  });

  it('keeps a running summary with the session instead of dropping the turns past the kept history', async () => {
    const summarizer = new RecordingSummarizer();
    const { reply, sessions } = makeReply(4, () => ({ summarizer }));
    const messages: ChatMessage[] = [];
    for (let i = 0; i < 4; i++) {
      messages.push({ role: 'user', content: `question ${i} about upcoming events` });
      const answer = await reply(request('chat', [...messages]), CONTEXT);
      messages.push({ role: 'assistant', content: answer.reply });
    }
    const stored = (await sessions.get('org_a', 'sess_1'))!;
    expect(stored.messages).to.have.length(4);
    // Every turn that left the kept history went into the summary, once, in order.
    const folded = summarizer.calls.flatMap((c) => c.turns);
    expect(folded).to.deep.equal(messages.slice(0, messages.length - 4).map((m) => m.content));
    expect(summarizer.calls.every((c) => c.model === 'builtin')).to.equal(true);
    expect(stored.summary?.covered).to.equal(0);
    expect(stored.summary?.text).to.include('question 0');
  });

  it('keeps excerpts of the turns when the summarizer fails (the turn is answered all the same)', async () => {
    const summarizer = new RecordingSummarizer();
    summarizer.failing = true;
    const { reply, sessions } = makeReply(2, () => ({ summarizer }));
    await reply(request('chat', [{ role: 'user', content: 'my order number is 77123' }]), CONTEXT);
    await reply(request('chat', [{ role: 'user', content: 'and when does it ship?' }]), CONTEXT);
    const stored = (await sessions.get('org_a', 'sess_1'))!;
    expect(stored.summary?.text).to.include('user: my order number is 77123');
  });

  it("records the summarizing round's tokens (as failed) when the reply then fails", async () => {
    const summarizer: Summarizer = {
      summarize: async (_p, _t, model) => ({
        text: 'earlier: an order',
        model,
        tokensInput: 40,
        tokensOutput: 12,
        cost: 0.5,
      }),
    };
    let fail = false;
    const responder = {
      defaultModel: 'remote-model',
      checkModel: (m: string) => m,
      respond: async () => {
        if (fail) throw new AppError('upstream_error', 'provider down');
        return { reply: 'ok', model: 'remote-model', tokensInput: 1, tokensOutput: 1, cost: 0 };
      },
    };
    const { reply, bus } = makeReply(2, () => ({ summarizer, responder }));
    await reply(request('chat', [{ role: 'user', content: 'first question' }]), CONTEXT);
    fail = true;
    const error = await reply(request('chat', [{ role: 'user', content: 'second question' }]), {
      ...CONTEXT,
      requestId: 'req_failed',
    }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(AppError);
    const failed = bus.published.filter(
      (e) =>
        e.type === 'usage.recorded' && (e.data as { requestId: string }).requestId === 'req_failed',
    );
    expect(failed.map((e) => e.data)).to.deep.equal([
      {
        ...(failed[0]?.data as object),
        model: 'remote-model',
        tokensInput: 40,
        tokensOutput: 12,
        cost: 0.5,
        outcome: 'failed',
      },
    ]);
  });
});

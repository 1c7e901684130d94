import { expect } from './chai';
import { AppError, countTokens, type CallContext } from '@switchyard/shared';
import { CONTEXT, Conversation, makeReply, request, type WireMessage } from './helpers';

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

const hi: WireMessage[] = [{ role: 'user', content: 'hi' }];

describe('Reply handler', () => {
  describe('validation', () => {
    const cases: Array<[string, Parameters<typeof request>, string, RegExp]> = [
      ['no messages', ['chat', []], '/messages', /at least one message/],
      [
        'a bad role',
        ['chat', [{ role: 'robot', content: 'x' }]],
        '/messages/0/role',
        /user, system, assistant/,
      ],
      [
        'content that is not a string',
        ['chat', [{ role: 'user', content: 3 as unknown as string }]],
        '/messages/0/content',
        /string/,
      ],
      [
        'a last message not from the user',
        [
          'chat',
          [
            { role: 'user', content: 'a' },
            { role: 'assistant', content: 'b' },
          ],
        ],
        '/messages',
        /last message/,
      ],
      ['an empty session_id', ['chat', hi, { session_id: '' }], '/session_id', /session_id/],
      ['an empty user_id', ['chat', hi, { user_id: ' ' }], '/user_id', /user_id/],
      [
        'a step for chat',
        ['chat', hi, { step: 1 }],
        '/step',
        /^step is only for the onboarding agent$/,
      ],
      [
        'a step for support',
        ['support', hi, { step: 2 }],
        '/step',
        /only for the onboarding agent/,
      ],
      ['no step for onboarding', ['onboarding', hi], '/step', /required/],
      ['step 0 for onboarding', ['onboarding', hi, { step: 0 }], '/step', /1 to 5/],
      ['step 6 for onboarding', ['onboarding', hi, { step: 6 }], '/step', /1 to 5/],
      ['step 2.5 for onboarding', ['onboarding', hi, { step: 2.5 }], '/step', /integer/],
      [
        'an unknown model',
        ['chat', hi, { model: 'gpt-9' }],
        '/model',
        /unknown model 'gpt-9'; available: builtin/,
      ],
    ];
    for (const [name, args, field, message] of cases) {
      it(`rejects ${name} with invalid_request ${field}`, async () => {
        const { reply, bus } = makeReply();
        const error = await rejection(reply(request(...args), CONTEXT));
        expect(error.code).to.equal('invalid_request');
        expect(error.message).to.match(message);
        expect(error.details[0]?.field).to.equal(field);
        expect(bus.published).to.have.length(0);
      });
    }

    it('rejects an unknown agent with not_found listing the known ones', async () => {
      const { reply } = makeReply();
      const error = await rejection(reply(request('sales', hi), CONTEXT));
      expect(error.code).to.equal('not_found');
      expect(error.message).to.equal(
        "unknown agent profile 'sales'; known: chat, onboarding, support",
      );
    });

    it('accepts the builtin model by name', async () => {
      const { reply } = makeReply();
      const response = await reply(
        request('chat', [{ role: 'user', content: 'hi' }], { model: 'builtin' }),
        CONTEXT,
      );
      expect(response.model).to.equal('builtin');
    });
  });

  describe('response and usage', () => {
    it('echoes the session, names agent, model and request id, and counts tokens', async () => {
      const { reply, bus } = makeReply();
      const response = await new Conversation(reply, 'support').say('how do I get my money back');
      expect(response).to.include({
        session_id: 'sess_1',
        agent: 'support',
        model: 'builtin',
        request_id: 'req_test1',
      });
      const usage = response.usage;
      expect(usage.tokens_output).to.equal(countTokens(response.reply));
      expect(usage.tokens_input).to.be.greaterThan(countTokens('how do I get my money back'));
      expect(usage.tokens_used).to.equal(usage.tokens_input + usage.tokens_output);
      expect(usage.timestamp).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(bus.published).to.have.length(1);
      expect(bus.published[0]).to.deep.include({
        type: 'usage.recorded',
        organization: 'org_a',
        source: 'assistant',
      });
      expect(bus.published[0]?.data).to.deep.equal({
        requestId: 'req_test1',
        keyId: 'key_1',
        route: 'assistant.chat',
        agent: 'support',
        model: 'builtin',
        tokensInput: usage.tokens_input,
        tokensOutput: usage.tokens_output,
        cost: 0,
        outcome: 'succeeded',
      });
    });

    it('fails with unavailable, and keeps the session unchanged, when usage can be neither published nor stored', async () => {
      const { reply, bus, sessions } = makeReply();
      bus.failing = true;
      const error = await rejection(
        reply(request('chat', [{ role: 'user', content: 'hi' }]), CONTEXT),
      );
      expect(error.code).to.equal('unavailable');
      expect(await sessions.get('org_a', 'sess_1')).to.equal(undefined);
    });
  });

  describe('sessions', () => {
    it('stores the merged history once, even when the client replays a turn', async () => {
      const { reply, sessions } = makeReply();
      const chat = new Conversation(reply, 'chat');
      await chat.say('concerts in Berlin');
      await chat.say('what about June?');
      // Replay: the client resends the same last turn (e.g. after a timeout).
      await reply(request('chat', chat.messages.slice(0, 3)), CONTEXT);
      const session = await sessions.get('org_a', 'sess_1');
      expect(session?.messages.map((m) => m.role)).to.deep.equal([
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      expect(session?.messages.filter((m) => m.content === 'what about June?')).to.have.length(1);
    });

    it('caps the stored history', async () => {
      const { reply, sessions } = makeReply(4);
      const chat = new Conversation(reply, 'chat');
      for (const q of ['hi', 'concerts in Berlin', 'comedy in London', 'festivals in Hamburg'])
        await chat.say(q);
      const session = await sessions.get('org_a', 'sess_1');
      expect(session?.messages).to.have.length(4);
      expect(session?.messages[0]?.content).to.equal('comedy in London');
    });

    it('refuses a session that belongs to another user', async () => {
      const { reply } = makeReply();
      await reply(request('chat', [{ role: 'user', content: 'hi' }]), CONTEXT);
      const error = await rejection(
        reply(request('chat', [{ role: 'user', content: 'hi' }], { user_id: 'user_2' }), CONTEXT),
      );
      expect(error.code).to.equal('invalid_request');
      expect(error.details[0]?.field).to.equal('/session_id');
    });

    it('keeps organizations apart: the same session id elsewhere is a different session', async () => {
      const { reply, sessions } = makeReply();
      await new Conversation(reply, 'support').say('my order number is 77123');
      const other: CallContext = { organization: 'org_b', keyId: 'key_9', requestId: 'req_other' };
      const response = await new Conversation(reply, 'support', { user_id: 'user_2' }, other).say(
        'how do I get my money back',
      );
      expect(response.reply).not.to.include('77123');
      expect((await sessions.get('org_b', 'sess_1'))?.userId).to.equal('user_2');
      expect((await sessions.get('org_a', 'sess_1'))?.memory.facts.orderNumber).to.equal('77123');
    });

    it('serialises concurrent calls of one session so no message is lost', async () => {
      const { reply, sessions } = makeReply();
      await Promise.all(
        ['concerts in Berlin', 'comedy in London', 'festivals in Hamburg'].map((q) =>
          reply(request('chat', [{ role: 'user', content: q }]), CONTEXT),
        ),
      );
      const session = await sessions.get('org_a', 'sess_1');
      expect(session?.messages).to.have.length(6);
    });
  });
});

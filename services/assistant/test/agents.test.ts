import type { AppError } from '@switchyard/shared';
import { expect } from './chai';
import { Conversation, makeReply } from './helpers';

const ASKS_TO_CONFIRM = /please confirm/i;

describe('agents (builtin engine)', () => {
  describe('support', () => {
    it('answers "how do I get my money back" from the refund article, with its steps and link', async () => {
      const { reply } = makeReply();
      const response = await new Conversation(reply, 'support').say('how do I get my money back');
      expect(response.reply).to.include(
        '[Refund policy](https://docs.switchyard.dev/support/refunds)',
      );
      expect(response.reply).to.include('Choose Request refund');
      expect(response.agent).to.equal('support');
      expect(response.step).to.equal(undefined);
      expect(response.next_step).to.equal(undefined);
    });

    it('says honestly when no article fits and asks for an order or ticket number to escalate', async () => {
      const { reply } = makeReply();
      const response = await new Conversation(reply, 'support').say('do you sell pizza ovens?');
      expect(response.reply).to.match(/couldn't find/i);
      expect(response.reply).to.match(/order or ticket number/i);
      expect(response.reply).not.to.include('docs.switchyard.dev');
    });

    it('remembers an order number from earlier in the session and uses it', async () => {
      const { reply } = makeReply();
      const chat = new Conversation(reply, 'support');
      const first = await chat.say('Hi, my order number is A-10492');
      expect(first.reply).to.include('A-10492');
      const refund = await chat.say('how do I get my money back');
      expect(refund.reply).to.include('order **A-10492**');
      const unknown = await chat.say('do you sell pizza ovens?');
      expect(unknown.reply).to.include('escalate this to our support team with order **A-10492**');
      const escalated = await chat.say('yes please');
      expect(escalated.reply).to.include('support@switchyard.dev with order **A-10492**');
    });

    it('goes back to the open question once the user gives the number', async () => {
      const { reply } = makeReply();
      const chat = new Conversation(reply, 'support');
      await chat.say('my parcel never came and nobody answers');
      const response = await chat.say('ticket 55821');
      expect(response.reply).to.include('ticket **55821**');
      expect(response.reply).to.include('Back to your question');
    });
  });

  describe('onboarding', () => {
    it('returns step and next_step, with next_step unset after step 5', async () => {
      const { reply } = makeReply();
      const chat = new Conversation(reply, 'onboarding');
      for (let step = 1; step <= 5; step++) {
        const response = await chat.say(`working on step ${step}`, step);
        expect(response.step).to.equal(step);
        expect(response.next_step).to.equal(step < 5 ? step + 1 : undefined);
        await chat.say('done', step);
      }
    });

    it('remembers the topic from step 1 and tailors later steps, each asking to confirm', async () => {
      const { reply } = makeReply();
      const chat = new Conversation(reply, 'onboarding');
      const step1 = await chat.say('I want to create a course on Spanish for travellers', 1);
      expect(step1.reply).to.include('**Spanish**').and.to.include('travellers');
      expect(step1.reply).to.match(ASKS_TO_CONFIRM);
      const step2 = await chat.say('done', 2);
      expect(step2.reply).to.include('Suggested modules for Spanish');
      expect(step2.reply).to.include('Greetings and introductions');
      expect(step2.reply).to.match(ASKS_TO_CONFIRM);
      for (const step of [3, 4, 5]) {
        const response = await chat.say('done', step);
        expect(response.reply).to.include('Spanish');
        expect(response.reply).to.match(step === 5 ? /confirm the launch plan/i : ASKS_TO_CONFIRM);
      }
    });

    it('asks for the topic when none was named', async () => {
      const { reply } = makeReply();
      const response = await new Conversation(reply, 'onboarding').say('let us start', 1);
      expect(response.reply).to.match(/tell me your course topic/i);
      expect(response.reply).to.match(ASKS_TO_CONFIRM);
    });

    it('acknowledges a confirmation of the current step and of the previous one when the client moved on', async () => {
      const { reply } = makeReply();
      const chat = new Conversation(reply, 'onboarding');
      await chat.say('The course is about digital photography for beginners', 1);
      const same = await chat.say('done', 1);
      expect(same.reply).to.match(/Step 1 \(Course topic and objectives\).*is confirmed/);
      expect(same.reply).to.include('step 2');
      await chat.say('here are my modules', 2);
      const movedOn = await chat.say('yes, confirmed', 3);
      expect(movedOn.reply).to.match(/^Step 2 \(Modules and lessons\) is confirmed/);
      expect(movedOn.reply).to.include('Step 3 of 5');
      await chat.say('ok', 4);
      await chat.say('ready', 5);
      const launch = await chat.say('confirmed', 5);
      expect(launch.reply).to.match(/launch plan for \*\*digital photography\*\* is confirmed/i);
      expect(launch.next_step).to.equal(undefined);
    });

    it('refuses to skip ahead past an unconfirmed step, clearly; going back is allowed and the progress is kept', async () => {
      const { reply, sessions } = makeReply();
      const chat = new Conversation(reply, 'onboarding');
      const error = await chat.say('a course on statistics', 3).then(
        () => undefined,
        (e: unknown) => e as AppError,
      );
      expect(error?.code).to.equal('conflict');
      expect(error?.message).to.equal(
        'step 3 cannot start yet: step 1 (Course topic and objectives) is not confirmed. Finish it and confirm (e.g. "done") with step 1, or with step 2 to move on; going back to an earlier step is always possible.',
      );
      expect(error?.details).to.deep.equal([
        { field: '/step', reason: 'must be <= 1 until step 1 is confirmed' },
      ]);
      chat.messages.length = 0;
      await chat.say('a course on statistics', 1);
      await chat.say('done', 2);
      const back = await chat.say('can we revisit the objectives?', 1);
      expect(back.step).to.equal(1);
      expect(back.reply).to.include('statistics');
      const stored = await sessions.get('org_a', 'sess_1');
      expect(stored?.memory.onboarding.confirmedSteps).to.deep.equal([1]);
      expect(stored?.memory.onboarding.draft?.topic).to.equal('statistics');
    });
  });

  describe('chat', () => {
    it('greets and says what it can do', async () => {
      const { reply } = makeReply();
      const response = await new Conversation(reply, 'chat').say('Hello!');
      expect(response.reply)
        .to.match(/^Hello!/)
        .and.to.include('offline builtin engine');
    });

    it('answers events questions from the database and follows up using the history', async () => {
      const { reply } = makeReply();
      const chat = new Conversation(reply, 'chat');
      const berlin = await chat.say('Any concerts in Berlin?');
      expect(berlin.reply)
        .to.include('Jazz im Tiergarten')
        .and.to.include('Spring Awakening Techno Night');
      expect(berlin.reply).not.to.include('Hyde Park');
      const june = await chat.say('what about June?');
      expect(june.reply).to.include('Following up on "Any concerts in Berlin?"');
      expect(june.reply).to.include('Jazz im Tiergarten').and.not.to.include('Spring Awakening');
      const allJune = await chat.say("what's on in June");
      expect(allJune.reply)
        .to.include('Harbour Rock Festival')
        .and.to.include('Stand-up Summer Showcase');
    });

    it('answers course questions from the catalogue', async () => {
      const { reply } = makeReply();
      const response = await new Conversation(reply, 'chat').say(
        'I want to learn Spanish, any courses?',
      );
      expect(response.reply).to.include('Spanish for Travellers (A1)');
    });

    it('says plainly what it cannot do and refers back to the earlier question', async () => {
      const { reply } = makeReply();
      const chat = new Conversation(reply, 'chat');
      await chat.say('comedy in London');
      const response = await chat.say('what is the capital of France?');
      expect(response.reply).to.include('offline builtin engine');
      expect(response.reply).to.include('Earlier you asked: "comedy in London"');
    });
  });
});

import { expect } from './chai';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import {
  AppError,
  callUnary,
  contextToMetadata,
  createClient,
  fromServiceError,
  protos,
  type CallContext,
  type RunningService,
} from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import type {
  AssistantServiceClient,
  ReplyChunk__Output,
  ReplyRequest,
  ReplyResponse__Output,
} from '@switchyard/shared/proto/assistant/v1';
import { loadAssistantConfig, startAssistantService } from '../src/server';
import { completionMessages } from '../src/responders/prompt';
import { FAKE_MODELS, FakeContentService } from './fake-content';
import { RecordingBus } from './helpers';

const ORG: CallContext = { organization: 'org_llm', keyId: 'key_llm', requestId: 'req_llm1' };

interface StreamOutcome {
  chunks: ReplyChunk__Output[];
  error?: AppError;
}

describe('assistant LLM responder (through a fake content service)', () => {
  let content: FakeContentService;
  let bus: RecordingBus;
  let service: RunningService;
  let client: AssistantServiceClient;

  async function startWith(env: NodeJS.ProcessEnv = {}): Promise<void> {
    const config = {
      ...loadAssistantConfig(env),
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      contentAddr: content.address,
      contentDeadlineMs: 5000,
    };
    service = await startAssistantService({ config, bus, logger: silentLogger() });
    client = createClient(protos.assistant().AssistantService, `127.0.0.1:${service.port}`);
  }

  async function stopService(): Promise<void> {
    client.close();
    await service.stop();
  }

  before(async () => {
    content = new FakeContentService();
    await content.start();
  });
  after(() => content.stop());
  beforeEach(async () => {
    bus = new RecordingBus();
    content.reset();
    await startWith();
  });
  afterEach(() => stopService());

  const reply = (request: ReplyRequest, context: CallContext = ORG) =>
    callUnary<ReplyRequest, ReplyResponse__Output>(
      'assistant',
      client.Reply,
      client,
      request,
      context,
      5000,
    );

  function stream(
    request: ReplyRequest,
    onChunk: (
      chunk: ReplyChunk__Output,
      call: ClientReadableStream<ReplyChunk__Output>,
    ) => void = () => undefined,
  ): Promise<StreamOutcome> {
    return new Promise((resolve) => {
      const chunks: ReplyChunk__Output[] = [];
      const call = client.ReplyStream(request, contextToMetadata(ORG), {
        deadline: Date.now() + 5000,
      });
      call.on('data', (chunk: ReplyChunk__Output) => {
        chunks.push(chunk);
        onChunk(chunk, call);
      });
      call.on('error', (error: ServiceError) =>
        resolve({ chunks, error: fromServiceError(error, 'assistant') }),
      );
      call.on('end', () => resolve({ chunks }));
    });
  }

  async function failure(promise: Promise<unknown>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      return error as AppError;
    }
    throw new Error('expected the call to fail');
  }

  const usageEvents = () => bus.published.filter((e) => e.type === 'usage.recorded');
  const refundQuestion = 'how do I get my money back? my order number is 88123';

  it('answers with the completion: its text, model and provider usage', async () => {
    const response = await reply({
      agent: 'support',
      user_id: 'u1',
      session_id: 's1',
      model: 'fake-gpt',
      messages: [{ role: 'user', content: refundQuestion }],
    });
    // The model's words, inside what the service composes: the reference noted, the offer of a person.
    expect(response.reply).to.equal(
      [
        "Thanks, I've noted order **88123**.",
        `Reply from fake-gpt to: "${refundQuestion}".`,
        'If you like, I can pass this to a person on our team: just say yes.',
      ].join('\n\n'),
    );
    expect(response.model).to.equal('fake-gpt');
    expect(response.usage).to.deep.include({
      tokens_input: 1200,
      tokens_output: 345,
      tokens_used: 1545,
    });
    expect(response.request_id).to.equal('req_llm1');
  });

  it('publishes exactly one usage.recorded with the provider tokens and the cost content returned', async () => {
    await reply({
      agent: 'support',
      user_id: 'u1',
      session_id: 's1',
      model: 'fake-gpt',
      messages: [{ role: 'user', content: refundQuestion }],
    });
    expect(usageEvents()).to.have.length(1);
    expect(usageEvents()[0]?.organization).to.equal('org_llm');
    expect(usageEvents()[0]?.data).to.deep.equal({
      requestId: 'req_llm1',
      keyId: 'key_llm',
      route: 'assistant.chat',
      agent: 'support',
      model: 'fake-gpt',
      tokensInput: FAKE_MODELS['fake-gpt']!.tokens_input,
      tokensOutput: FAKE_MODELS['fake-gpt']!.tokens_output,
      cost: FAKE_MODELS['fake-gpt']!.cost,
      outcome: 'succeeded',
    });
  });

  it('sends the agent system prompt, the retrieved context and the session history', async () => {
    // The organization's own help article: the only knowledge the agent has.
    await callUnary(
      'assistant',
      client.CreateCollection,
      client,
      { name: 'help', kind: 'articles' },
      ORG,
      5000,
    );
    await callUnary(
      'assistant',
      client.ImportDocuments,
      client,
      {
        collection: 'help',
        format: 'jsonl',
        content: JSON.stringify({
          id: 'refunds',
          title: 'Getting your money back',
          body: 'To get your money back:\n1. Open Orders.\n2. Choose Request refund.\n\nTags: refund',
          url: 'https://help.example/refunds',
        }),
      },
      ORG,
      5000,
    );
    const base = { agent: 'support', user_id: 'u1', session_id: 's-history', model: 'fake-gpt' };
    const first = await reply({
      ...base,
      messages: [{ role: 'user', content: 'my order number is A-10492' }],
    });
    // The client sends only its new message: the earlier turn comes from the session.
    await reply({ ...base, messages: [{ role: 'user', content: refundQuestion }] });

    const call = content.calls[content.calls.length - 1]!;
    expect(call.method).to.equal('Complete');
    expect(call.request.model).to.equal('fake-gpt');
    expect(call.request.operation).to.equal('chat');
    expect(call.context).to.deep.equal(ORG);
    const [system, ...history] = call.request.messages;
    expect(system?.role).to.equal('system');
    expect(system?.content).to.include("You are the organization's customer support agent");
    // The steps that answer, quoted from the article, never its metadata line.
    expect(system?.content).to.include(
      'Facts ([n] and id name each record):\n[1] id help/refunds: [Getting your money back](https://help.example/refunds)',
    );
    expect(system?.content).to.include('2. Choose Request refund.');
    expect(system?.content).to.not.include('Tags: refund');
    expect(system?.content).to.not.include('switchyard.dev');
    expect(history.map((m) => ({ role: m.role, content: m.content }))).to.deep.equal([
      { role: 'user', content: 'my order number is A-10492' },
      { role: 'assistant', content: first.reply },
      { role: 'user', content: refundQuestion },
    ]);
  });

  it('adds the onboarding step instructions to the system message', async () => {
    await reply({
      agent: 'onboarding',
      user_id: 'u1',
      session_id: 's-onb',
      model: 'fake-gpt',
      step: 1,
      messages: [{ role: 'user', content: 'a course on Python for beginners' }],
    });
    await reply({
      agent: 'onboarding',
      user_id: 'u1',
      session_id: 's-onb',
      model: 'fake-gpt',
      step: 2,
      messages: [{ role: 'user', content: 'done' }],
    });
    const system = content.calls[1]!.request.messages[0]!.content;
    expect(system).to.include('You are the course onboarding agent');
    expect(system).to.include('This turn is onboarding step 2 of 5: ');
    expect(system).to.include('Facts ([n] and id name each record):\n[1] Step 2: ');
  });

  it('builds the prompt as system + step + context + history (unit)', () => {
    const messages = completionMessages({
      systemPrompt: 'SYSTEM',
      step: 1,
      context: [
        {
          kind: 'curriculum_step',
          step: {
            step: 1,
            title: 'Topic',
            goal: 'Name it.',
            guidance: ['G1'],
            confirm: 'Confirm.',
          },
        },
      ],
      history: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: 'second' },
      ],
    });
    expect(messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'user']);
    const system = messages[0]!.content ?? '';
    expect(system.indexOf('SYSTEM')).to.equal(0);
    expect(system.indexOf('This turn is onboarding step 1 of 5')).to.be.greaterThan(0);
    expect(system.indexOf('[1] Step 1: Topic. Name it.')).to.be.greaterThan(
      system.indexOf('This turn is onboarding step 1'),
    );
  });

  it('passes an unknown model through as the content service invalid_request, recording no usage', async () => {
    const error = await failure(
      reply({
        agent: 'chat',
        user_id: 'u1',
        session_id: 's2',
        model: 'gpt-9',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(error.code).to.equal('invalid_request');
    expect(error.details).to.deep.equal([{ field: '/model', reason: 'unknown model' }]);
    expect(usageEvents()).to.have.length(0);
  });

  it('passes a provider failure through with its code and records no usage', async () => {
    content.behave({
      kind: 'fail',
      error: new AppError('upstream_error', 'the model provider failed'),
    });
    const error = await failure(
      reply({
        agent: 'chat',
        user_id: 'u1',
        session_id: 's3',
        model: 'fake-gpt',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(error.code).to.equal('upstream_error');
    expect(usageEvents()).to.have.length(0);
  });

  it('keeps the builtin engine for model builtin and for no model (default), without calling content', async () => {
    const named = await reply({
      agent: 'chat',
      user_id: 'u1',
      session_id: 's4',
      model: 'builtin',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const unnamed = await reply({
      agent: 'chat',
      user_id: 'u1',
      session_id: 's5',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect([named.model, unnamed.model]).to.deep.equal(['builtin', 'builtin']);
    expect(content.calls).to.have.length(0);
    expect(usageEvents().map((e) => e.data.cost)).to.deep.equal([0, 0]);
  });

  it('stays on builtin when DEFAULT_MODEL names a model (configuring a model switches no assistant)', async () => {
    await stopService();
    await startWith({ DEFAULT_MODEL: 'fake-other' });
    const response = await reply({
      agent: 'chat',
      user_id: 'u1',
      session_id: 's6',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.model).to.equal('builtin');
    expect(content.calls).to.have.length(0);
  });

  it('uses ASSISTANT_MODEL when the request names no model (the operator names it)', async () => {
    await stopService();
    await startWith({ ASSISTANT_MODEL: 'fake-other' });
    const response = await reply({
      agent: 'chat',
      user_id: 'u1',
      session_id: 's6',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.model).to.equal('fake-other');
    expect(response.usage?.tokens_used).to.equal(88);
    expect(content.calls[0]?.request.model).to.equal('fake-other');
  });

  describe('ReplyStream', () => {
    it('streams the checked reply in deltas, then the Reply fields, with one usage event', async () => {
      const outcome = await stream({
        agent: 'chat',
        user_id: 'u1',
        session_id: 's7',
        model: 'fake-gpt',
        messages: [{ role: 'user', content: 'what is on in Berlin' }],
      });
      expect(outcome.error).to.equal(undefined);
      const deltas = outcome.chunks.filter((c) => c.kind === 'delta').map((c) => c.delta);
      const final = outcome.chunks[outcome.chunks.length - 1]!;
      expect(final.kind).to.equal('final');
      expect(deltas.length).to.be.greaterThan(1);
      expect(deltas.join('')).to.include('Reply from fake-gpt to: "what is on in Berlin".');
      expect(final.final).to.deep.include({
        reply: deltas.join(''),
        model: 'fake-gpt',
        agent: 'chat',
        session_id: 's7',
        request_id: 'req_llm1',
      });
      expect(final.final?.usage).to.deep.include({ tokens_input: 1200, tokens_output: 345 });
      expect(content.calls.map((c) => c.method)).to.deep.equal(['CompleteStream']);
      expect(usageEvents()).to.have.length(1);
      expect(usageEvents()[0]?.data).to.deep.include({
        model: 'fake-gpt',
        tokensInput: 1200,
        tokensOutput: 345,
        cost: 0.00189,
      });
    });

    it('streams the builtin reply in word deltas', async () => {
      const outcome = await stream({
        agent: 'chat',
        user_id: 'u1',
        session_id: 's8',
        messages: [{ role: 'user', content: 'hi' }],
      });
      const final = outcome.chunks[outcome.chunks.length - 1]!.final!;
      expect(final.model).to.equal('builtin');
      expect(
        outcome.chunks
          .filter((c) => c.kind === 'delta')
          .map((c) => c.delta)
          .join(''),
      ).to.equal(final.reply);
      expect(content.calls).to.have.length(0);
    });

    it('ends with the error, and nothing unchecked sent, when the completion stream breaks; no usage', async () => {
      content.behave({
        kind: 'break',
        deltas: 2,
        error: new AppError('upstream_error', 'stream broke'),
      });
      const outcome = await stream({
        agent: 'chat',
        user_id: 'u1',
        session_id: 's9',
        model: 'fake-gpt',
        messages: [{ role: 'user', content: 'hi there' }],
      });
      expect(content.calls.map((c) => c.method)).to.deep.equal(['CompleteStream']);
      expect(outcome.chunks).to.deep.equal([]);
      expect(outcome.error?.code).to.equal('upstream_error');
      expect(usageEvents()).to.have.length(0);
    });

    it('cancels the completion stream when the caller cancels', async () => {
      content.behave({ kind: 'hang' });
      const call = client.ReplyStream(
        {
          agent: 'chat',
          user_id: 'u1',
          session_id: 's10',
          model: 'fake-gpt',
          messages: [{ role: 'user', content: 'hi' }],
        },
        contextToMetadata(ORG),
        { deadline: Date.now() + 5000 },
      );
      const chunks: ReplyChunk__Output[] = [];
      call.on('data', (chunk: ReplyChunk__Output) => chunks.push(chunk));
      call.on('error', () => undefined);
      // The model's first delta arrived at the assistant: the caller goes away mid-generation.
      await waitFor(() => content.calls.some((c) => c.method === 'CompleteStream'), 3000);
      call.cancel();
      await waitFor(() => content.cancelled.includes('CompleteStream'), 3000);
      expect(chunks).to.deep.equal([]);
    });
  });
});

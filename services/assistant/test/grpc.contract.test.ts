import { expect } from './chai';
import {
  AppError,
  callUnary,
  checkHealth,
  createClient,
  InMemoryEventBus,
  protos,
  SERVICE_NAMES,
  Topics,
  type AnyEvent,
  type CallContext,
  type RunningService,
} from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import type {
  AssistantServiceClient,
  ListAgentsRequest,
  ListAgentsResponse__Output,
  ReplyRequest,
  ReplyResponse__Output,
} from '@switchyard/shared/proto/assistant/v1';
import { loadAssistantConfig, startAssistantService } from '../src/server';
import { FakeContentService } from './fake-content';
import { RecordingBus } from './helpers';

const ORG_A: CallContext = { organization: 'org_a', keyId: 'key_a', requestId: 'req_contract1' };
const ORG_B: CallContext = { organization: 'org_b', keyId: 'key_b', requestId: 'req_contract2' };
const baseConfig = {
  ...loadAssistantConfig({}),
  grpcHost: '127.0.0.1',
  grpcPort: 0,
  logLevel: 'silent',
};

describe('assistant gRPC contract', () => {
  let bus: InMemoryEventBus;
  let service: RunningService;
  let client: AssistantServiceClient;
  let content: FakeContentService;
  let config: typeof baseConfig;
  const usageEvents: AnyEvent[] = [];

  before(async () => {
    content = new FakeContentService();
    await content.start();
    config = { ...baseConfig, contentAddr: content.address };
    bus = new InMemoryEventBus();
    await bus.subscribe({
      group: 'contract-test',
      topics: [Topics.usage],
      handler: async (event) => void usageEvents.push(event),
    });
    service = await startAssistantService({ config, bus, logger: silentLogger() });
    client = createClient(protos.assistant().AssistantService, `127.0.0.1:${service.port}`);
  });

  after(async () => {
    client.close();
    await service.stop();
    await bus.close();
    await content.stop();
  });

  const reply = (request: ReplyRequest, context: CallContext = ORG_A) =>
    callUnary<ReplyRequest, ReplyResponse__Output>(
      'assistant',
      client.Reply,
      client,
      request,
      context,
      5000,
    );

  async function failure(promise: Promise<unknown>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      return error as AppError;
    }
    throw new Error('expected the call to fail');
  }

  it('reports SERVING on grpc.health.v1', async () => {
    expect(await checkHealth(`127.0.0.1:${service.port}`, SERVICE_NAMES.AssistantService)).to.equal(
      'SERVING',
    );
  });

  it('lists the agents', async () => {
    const response = await callUnary<ListAgentsRequest, ListAgentsResponse__Output>(
      'assistant',
      client.ListAgents,
      client,
      {},
      ORG_A,
      5000,
    );
    expect(response.agents.map((a) => [a.name, a.uses_steps])).to.deep.equal([
      ['chat', false],
      ['onboarding', true],
      ['support', false],
    ]);
    expect(response.agents.every((a) => a.description.length > 0)).to.equal(true);
  });

  it('answers a support question and publishes one usage event', async () => {
    const before = usageEvents.length;
    const response = await reply({
      agent: 'support',
      user_id: 'u1',
      session_id: 'c1',
      messages: [{ role: 'user', content: 'how do I get my money back? my order number is 88123' }],
    });
    // An organization without help articles says so; nothing of the vendor's demo data answers.
    expect(response.reply).to.include('88123');
    expect(response.reply).to.not.include('switchyard.dev');
    expect(response).to.include({
      session_id: 'c1',
      agent: 'support',
      model: 'builtin',
      request_id: 'req_contract1',
    });
    expect(response.step).to.equal(undefined);
    expect(response.next_step).to.equal(undefined);
    expect(response.usage?.tokens_used).to.equal(
      response.usage!.tokens_input + response.usage!.tokens_output,
    );
    await waitFor(() => usageEvents.length === before + 1);
    const event = usageEvents[before]!;
    expect(event.organization).to.equal('org_a');
    expect(event.data).to.deep.include({
      requestId: 'req_contract1',
      keyId: 'key_a',
      route: 'assistant.chat',
      agent: 'support',
      model: 'builtin',
      tokensInput: response.usage!.tokens_input,
      tokensOutput: response.usage!.tokens_output,
      cost: 0,
      outcome: 'succeeded',
    });
  });

  it('returns step and next_step for onboarding, with next_step unset after step 5', async () => {
    const base = { agent: 'onboarding', user_id: 'u1', session_id: 'c2' };
    const step1 = await reply({
      ...base,
      step: 1,
      messages: [{ role: 'user', content: 'a course on Python for beginners' }],
    });
    expect([step1.step, step1.next_step]).to.deep.equal([1, 2]);
    for (const step of [2, 3, 4])
      await reply({ ...base, step, messages: [{ role: 'user', content: 'done' }] });
    const step5 = await reply({
      ...base,
      step: 5,
      messages: [{ role: 'user', content: 'confirmed, now finalize' }],
    });
    expect(step5.step).to.equal(5);
    expect(step5.next_step).to.equal(undefined);
    expect(step5.reply).to.include('Python');
  });

  it('returns errors with their code and field', async () => {
    const unknown = await failure(
      reply({
        agent: 'sales',
        user_id: 'u',
        session_id: 's',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(unknown.code).to.equal('not_found');
    expect(unknown.message).to.equal(
      "unknown agent profile 'sales'; known: chat, onboarding, support",
    );

    const noStep = await failure(
      reply({
        agent: 'onboarding',
        user_id: 'u',
        session_id: 's',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(noStep.code).to.equal('invalid_request');
    expect(noStep.details).to.deep.equal([{ field: '/step', reason: 'required' }]);

    const chatStep = await failure(
      reply({
        agent: 'chat',
        user_id: 'u',
        session_id: 's',
        step: 2,
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(chatStep.details[0]?.field).to.equal('/step');

    const lastNotUser = await failure(
      reply({
        agent: 'chat',
        user_id: 'u',
        session_id: 's',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'y' },
        ],
      }),
    );
    expect(lastNotUser.details[0]?.field).to.equal('/messages');

    // Models other than builtin are the content service's to know: its invalid_request passes through.
    const model = await failure(
      reply({
        agent: 'chat',
        user_id: 'u',
        session_id: 's',
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(model.code).to.equal('invalid_request');
    expect(model.details).to.deep.equal([{ field: '/model', reason: 'unknown model' }]);
    expect(model.message).to.equal('unknown model "gpt-4o"; known models: fake-gpt, fake-other');
  });

  it('keeps sessions per organization', async () => {
    const base = { agent: 'support', session_id: 'shared-id' };
    await reply(
      {
        ...base,
        user_id: 'alice',
        messages: [{ role: 'user', content: 'my order number is 55555' }],
      },
      ORG_A,
    );
    const sameOrgOtherUser = await failure(
      reply({ ...base, user_id: 'mallory', messages: [{ role: 'user', content: 'hi' }] }, ORG_A),
    );
    expect(sameOrgOtherUser.details[0]?.field).to.equal('/session_id');

    const otherOrg = await reply(
      {
        ...base,
        user_id: 'bob',
        messages: [{ role: 'user', content: 'how do I get my money back' }],
      },
      ORG_B,
    );
    expect(otherOrg.reply).not.to.include('55555');
    const sameOrg = await reply(
      {
        ...base,
        user_id: 'alice',
        messages: [{ role: 'user', content: 'how do I get my money back' }],
      },
      ORG_A,
    );
    expect(sameOrg.reply).to.include('55555');
  });

  it('answers while the bus is down; the usage event is published once the bus recovers', async () => {
    const flakyBus = new RecordingBus();
    flakyBus.failing = true;
    const other = await startAssistantService({
      config: { ...config, outboxRelayIntervalMs: 20, outboxPublishTimeoutMs: 500 },
      bus: flakyBus,
      logger: silentLogger(),
    });
    const otherClient = createClient(
      protos.assistant().AssistantService,
      `127.0.0.1:${other.port}`,
    );
    try {
      const context = { ...ORG_A, requestId: 'req_outbox1' };
      await callUnary(
        'assistant',
        otherClient.Reply,
        otherClient,
        {
          agent: 'chat',
          user_id: 'u',
          session_id: 's',
          messages: [{ role: 'user', content: 'hi' }],
        },
        context,
        5000,
      );
      expect(flakyBus.published).to.have.length(0);
      flakyBus.failing = false;
      await waitFor(() => flakyBus.published.length === 1, 5000);
      expect(flakyBus.published[0]).to.deep.include({
        type: 'usage.recorded',
        organization: 'org_a',
      });
      expect(flakyBus.published[0]?.data).to.deep.include({ requestId: 'req_outbox1' });
    } finally {
      otherClient.close();
      await other.stop();
    }
  });
});

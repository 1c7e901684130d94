import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import OpenAI from 'openai';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { FakeLlmServer, REPORTED } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { E2E_ENV } from '../support/mesh';
import { pythonWithOpenAi, REPO } from '../support/python';

/**
 * The official `openai` npm package against the gateway's OpenAI-compatible surface, unchanged but
 * for its base URL and key: the SDK parses every body, stream and error itself, so what it accepts
 * is what OpenAI's clients accept.
 */

const CHAT = ['generate', 'summarize', 'reformat', 'translate', 'chat'];

function registryFor(baseUrl: string) {
  const remote = { provider: 'openai-compatible', baseUrl, apiKeyEnv: 'FAKE_UPSTREAM_KEY' };
  return {
    defaultModel: 'builtin',
    models: [
      { id: 'builtin', provider: 'builtin' },
      {
        ...remote,
        id: 'fake-gpt',
        aliases: ['gpt-fast'],
        upstreamModel: 'up-gpt',
        contextWindow: 16000,
        maxOutputTokens: 1000,
        capabilities: CHAT,
        inputPricePerMillion: 1,
        outputPricePerMillion: 2,
        maxRetries: 0,
      },
      {
        ...remote,
        id: 'fake-embed',
        upstreamModel: 'up-embed',
        contextWindow: 8000,
        maxOutputTokens: 1,
        capabilities: ['embeddings'],
        inputPricePerMillion: 0.02,
      },
    ],
  };
}

describe('e2e: the official openai SDKs (npm, and PyPI from Python) against /v1', () => {
  let fake: FakeLlmServer;
  let mesh: EmbeddedMesh;
  let client: OpenAI;

  before(async function () {
    this.timeout(30_000);
    fake = new FakeLlmServer('sk-upstream');
    const baseUrl = await fake.start();
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_API_KEY: 'sk_openai_sdk_0123456789abcdef',
        FAKE_UPSTREAM_KEY: 'sk-upstream',
        MODEL_REGISTRY_JSON: JSON.stringify(registryFor(baseUrl)),
        ADMIN_TOKEN: 'adm_openai_sdk_0123456789abcdef',
      },
      silentLogger(),
    );
    client = new OpenAI({ baseURL: `${mesh.gatewayUrl}/v1`, apiKey: mesh.apiKey, maxRetries: 0 });
  });

  after(async function () {
    this.timeout(30_000);
    await mesh?.stop();
    await fake?.close();
  });

  afterEach(() => fake.reset());

  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You write product copy.' },
    { role: 'user', content: 'A line for trail shoes' },
  ];

  it('answers a chat completion as OpenAI does, with the provider-reported usage and one request id', async () => {
    const {
      data: completion,
      response,
      request_id,
    } = await client.chat.completions.create({ model: 'fake-gpt', messages }).withResponse();
    expect(completion.object).to.equal('chat.completion');
    expect(completion.choices[0]!.message.content).to.equal(
      FakeLlmServer.answerFor('up-gpt', messages as Array<{ content: string }>),
    );
    expect(completion.choices[0]!.finish_reason).to.equal('stop');
    expect(completion.usage).to.include({ prompt_tokens: 1200, completion_tokens: 345 });
    expect(response.headers.get('x-request-id')).to.match(/^req_/);
    expect(request_id).to.equal(response.headers.get('x-request-id'));
  });

  it('passes every parameter to the provider unchanged but the model name (n, stop, temperature, response_format, max_tokens, tools, tool_choice, seed)', async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'find_shoes', parameters: { type: 'object', properties: {} } },
      },
    ];
    await client.chat.completions.create({
      model: 'gpt-fast',
      messages,
      n: 2,
      stop: ['\n\n', 'END'],
      temperature: 0.3,
      max_tokens: 77,
      response_format: { type: 'json_object' },
      tools,
      tool_choice: 'auto',
      seed: 42,
    });
    const [sent] = fake.requests;
    expect(sent!.body).to.deep.include({
      model: 'up-gpt',
      n: 2,
      stop: ['\n\n', 'END'],
      temperature: 0.3,
      max_tokens: 77,
      response_format: { type: 'json_object' },
      tools,
      tool_choice: 'auto',
      seed: 42,
      messages,
    });
  });

  it('streams chunks that concatenate to the answer, then the usage chunk, then ends', async () => {
    const stream = await client.chat.completions.create({
      model: 'fake-gpt',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).to.equal(
      FakeLlmServer.answerFor('up-gpt', messages as Array<{ content: string }>),
    );
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).to.deep.equal([]);
    expect(last.usage).to.include({ prompt_tokens: 1200, completion_tokens: 345 });
    expect(chunks.slice(0, -1).every((c) => !c.usage)).to.equal(true);
  });

  it('asks the provider for the usage of every stream, and leaves it out when the client did not ask', async () => {
    const stream = await client.chat.completions.create({
      model: 'fake-gpt',
      messages,
      stream: true,
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(fake.requests[0]!.includeUsage).to.equal(true);
    expect(chunks.some((c) => c.usage)).to.equal(false);
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).to.equal(true);
  });

  it('carries a tools round trip: the call, the tool result back, then the answer', async () => {
    fake.script('up-gpt', {
      kind: 'tool_calls',
      calls: [{ name: 'find_shoes', arguments: { terrain: 'mud', size: 43 } }],
    });
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'find_shoes',
          parameters: {
            type: 'object',
            properties: { terrain: { type: 'string' }, size: { type: 'number' } },
          },
        },
      },
    ];
    const first = await client.chat.completions.create({ model: 'fake-gpt', messages, tools });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).to.equal('tool_calls');
    expect(call.type).to.equal('function');
    if (call.type !== 'function') throw new Error('not a function call');
    expect(JSON.parse(call.function.arguments)).to.deep.equal({ terrain: 'mud', size: 43 });
    const followUp = [
      ...messages,
      first.choices[0]!.message,
      { role: 'tool' as const, tool_call_id: call.id, content: '{"shoes":["Ridge 2"]}' },
    ];
    const second = await client.chat.completions.create({
      model: 'fake-gpt',
      messages: followUp,
      tools,
    });
    expect(second.choices[0]!.message.content).to.be.a('string').and.not.equal('');
    const sent = fake.requests[1]!.messages;
    expect(sent[sent.length - 1]).to.deep.include({ role: 'tool', tool_call_id: call.id });
    expect(sent[sent.length - 2]!.tool_calls).to.have.length(1);
  });

  it('streams tool-call deltas that the SDK assembles into the call', async () => {
    fake.script('up-gpt', {
      kind: 'tool_calls',
      calls: [{ name: 'find_shoes', arguments: { terrain: 'rocky trails', size: 44.5 } }],
    });
    const runner = client.chat.completions.stream({
      model: 'fake-gpt',
      messages,
      tools: [
        { type: 'function', function: { name: 'find_shoes', parameters: { type: 'object' } } },
      ],
      stream_options: { include_usage: true },
    });
    const completion = await runner.finalChatCompletion();
    const call = completion.choices[0]!.message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error('not a function call');
    expect(call.function.name).to.equal('find_shoes');
    expect(JSON.parse(call.function.arguments)).to.deep.equal({
      terrain: 'rocky trails',
      size: 44.5,
    });
    expect(completion.choices[0]!.finish_reason).to.equal('tool_calls');
    expect(completion.usage).to.include({ prompt_tokens: 1200, completion_tokens: 345 });
  });

  it('answers embeddings as floats and as base64 (the SDK default), in input order', async () => {
    const inputs = ['waterproof trail shoes', 'a tent for two'];
    const floats = await client.embeddings.create({
      model: 'fake-embed',
      input: inputs,
      encoding_format: 'float',
    });
    const decoded = await client.embeddings.create({ model: 'fake-embed', input: inputs });
    for (const [index, text] of inputs.entries()) {
      expect(floats.data[index]!.embedding).to.deep.equal(fake.embed(text));
      expect(decoded.data[index]!.embedding).to.deep.equal(fake.embed(text));
    }
    expect(floats.usage).to.deep.equal({ prompt_tokens: 7, total_tokens: 7 });
    expect(floats.object).to.equal('list');
  });

  it('lists the registry as models and retrieves one by id or alias', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).to.include.members(['builtin', 'fake-gpt', 'fake-embed']);
    const model = await client.models.retrieve('gpt-fast');
    expect(model).to.include({ id: 'gpt-fast', object: 'model', owned_by: 'openai-compatible' });
  });

  it("raises the SDK's own errors: 404 model_not_found, 401 invalid_api_key, 400 with the parameter", async () => {
    const missing = await client.chat.completions
      .create({ model: 'no-such-model', messages })
      .catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(OpenAI.NotFoundError);
    expect(missing).to.include({
      code: 'model_not_found',
      param: 'model',
      type: 'invalid_request_error',
    });
    const missingModel = await client.models.retrieve('no-such-model').catch((e: unknown) => e);
    expect(missingModel).to.be.instanceOf(OpenAI.NotFoundError);

    const stranger = new OpenAI({
      baseURL: `${mesh.gatewayUrl}/v1`,
      apiKey: 'sk_unknown_0123456789abcdefghij',
      maxRetries: 0,
    });
    const denied = await stranger.models.list().catch((e: unknown) => e);
    expect(denied).to.be.instanceOf(OpenAI.AuthenticationError);
    expect(denied).to.include({ code: 'invalid_api_key' });

    const invalid = await client.chat.completions
      .create({ model: 'fake-gpt', messages, temperature: 7 })
      .catch((e: unknown) => e);
    expect(invalid).to.be.instanceOf(OpenAI.BadRequestError);
    expect(invalid).to.include({ param: 'temperature', type: 'invalid_request_error' });
    // As OpenAI: an empty input is the caller's error, not the server's.
    const empty = await client.embeddings
      .create({ model: 'fake-embed', input: [''] })
      .catch((e: unknown) => e);
    expect(empty).to.be.instanceOf(OpenAI.BadRequestError);
    expect(empty).to.include({ param: 'input', type: 'invalid_request_error' });
    expect(fake.requests).to.have.length(0);
  });

  /** An organization of its own (its rate limit and ledger are this test's alone) and an SDK client with its key. */
  async function organization(id: string, requestsPerMinute: number): Promise<OpenAI> {
    const admin = {
      authorization: `Bearer ${mesh.adminToken}`,
      'content-type': 'application/json',
    };
    const created = await fetch(`${mesh.gatewayUrl}/api/v2/admin/organizations`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        id,
        name: id,
        monthlyTokenQuota: 10_000_000,
        rateLimits: { requestsPerMinute },
      }),
    });
    expect(created.status).to.equal(201);
    const issued = await fetch(`${mesh.gatewayUrl}/api/v2/admin/organizations/${id}/keys`, {
      method: 'POST',
      headers: admin,
      body: '{}',
    });
    const { key } = (await issued.json()) as { key: string };
    return new OpenAI({ baseURL: `${mesh.gatewayUrl}/v1`, apiKey: key, maxRetries: 0 });
  }

  it('raises RateLimitError (429, type requests) with Retry-After when the key is over its limit', async () => {
    const limited = await organization('openai-limited', 2);
    await limited.models.list();
    await limited.models.list();
    const refused = await limited.models.list().catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(OpenAI.RateLimitError);
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).to.include({ code: 'rate_limit_exceeded', type: 'requests' });
    expect(Number(error.headers.get('retry-after'))).to.be.within(1, 60);
  });

  /** The organization's /v1/chat/completions bucket of the ledger once it counts `calls` calls. */
  async function ledgerOf(key: string, calls: number) {
    return waitFor(async () => {
      const response = await fetch(`${mesh.gatewayUrl}/api/v2/usage`, {
        headers: { authorization: `X-API-Key ${key}` },
      }).catch(() => undefined);
      const report = (await response?.json()) as
        | {
            byEndpoint?: Array<{
              endpoint: string;
              tokensInput: number;
              tokensOutput: number;
              calls: number;
            }>;
          }
        | undefined;
      const bucket = report?.byEndpoint?.find((b) => b.endpoint === '/v1/chat/completions');
      return bucket?.calls === calls ? bucket : undefined;
    }, 10_000);
  }

  it('the official Python SDK passes the same checks, and the ledger holds the usage it saw', async function () {
    this.timeout(60_000);
    const python = pythonWithOpenAi();
    if (!python) {
      // CI installs it (.ci/run); elsewhere: python3 -m venv .run/python && .run/python/bin/pip install openai
      if (process.env.CI) throw new Error('no Python with the openai package (see .ci/run)');
      this.skip();
    }
    const billed = await organization('openai-python', 1000);
    const limited = await organization('openai-python-limited', 2);
    // The script's third chat call is the first of its tools round trip.
    fake.script(
      'up-gpt',
      { kind: 'ok' },
      { kind: 'ok' },
      {
        kind: 'tool_calls',
        calls: [{ name: 'find_shoes', arguments: { terrain: 'mud' } }],
      },
    );
    const { stdout } = await promisify(execFile)(
      python!,
      [path.join(REPO, 'test', 'python', 'openai_sdk_check.py')],
      {
        env: {
          ...process.env,
          OPENAI_BASE_URL: `${mesh.gatewayUrl}/v1`,
          OPENAI_API_KEY: billed.apiKey!,
          LIMITED_API_KEY: limited.apiKey!,
        },
        timeout: 50_000,
      },
    );
    const seen = JSON.parse(stdout.trim().split('\n').pop()!) as {
      prompt_tokens: number;
      completion_tokens: number;
      calls: number;
    };
    expect(seen.calls).to.equal(4);
    const chat = await ledgerOf(billed.apiKey!, seen.calls);
    expect(chat).to.include({
      tokensInput: seen.prompt_tokens,
      tokensOutput: seen.completion_tokens,
    });
  });

  it('records in the usage ledger exactly the usage the SDK saw, streams included', async function () {
    this.timeout(20_000);
    const billed = await organization('openai-ledger', 1000);
    let input = 0;
    let output = 0;
    for (let i = 0; i < 3; i++) {
      const completion = await billed.chat.completions.create({ model: 'fake-gpt', messages });
      input += completion.usage!.prompt_tokens;
      output += completion.usage!.completion_tokens;
      const stream = await billed.chat.completions.create({
        model: 'fake-gpt',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        input += chunk.usage?.prompt_tokens ?? 0;
        output += chunk.usage?.completion_tokens ?? 0;
      }
    }
    expect(input).to.equal(6 * REPORTED.prompt_tokens);
    const ledger = async () => {
      const response = await fetch(`${mesh.gatewayUrl}/api/v2/usage`, {
        headers: { authorization: `X-API-Key ${billed.apiKey}` },
      });
      return (await response.json()) as {
        byEndpoint: Array<{
          endpoint: string;
          tokensInput: number;
          tokensOutput: number;
          calls: number;
        }>;
      };
    };
    const chat = await waitFor(async () => {
      const report = await ledger().catch(() => undefined);
      const bucket = report?.byEndpoint?.find((b) => b.endpoint === '/v1/chat/completions');
      return bucket?.calls === 6 ? bucket : undefined;
    }, 10_000);
    expect(chat).to.include({ tokensInput: input, tokensOutput: output, calls: 6 });
  });
});

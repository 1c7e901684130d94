import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import OpenAI from 'openai';
import { DEFAULT_CHAT_MODEL, DEFAULT_EMBEDDING_MODEL } from '@switchyard/content';
import { pythonWithOpenAi, REPO } from '../support/python';

/**
 * A new user's first hour: the mesh started exactly as the README says (`npm start` runs
 * deploy/embedded after its build, which `npm test` has done), with no model variable set, and
 * the official openai SDKs (npm and PyPI) against /v1: real answers from the local chat model,
 * real vectors from the local embedding model, the seed honoured per request, and every parameter
 * the local runtime cannot honour refused by name. The models come from the model cache (CI fills
 * it with `npm run model:fetch`); where it is empty, the start fetches them as a user's would.
 */

const CHAT = DEFAULT_CHAT_MODEL.id;
const EMBED = DEFAULT_EMBEDDING_MODEL.id;

/** The user's environment without any model choice (and without the test run's infrastructure). */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'DEFAULT_MODEL',
    'ASSISTANT_MODEL',
    'LOCAL_MODEL_PATH',
    'LOCAL_MODEL_ID',
    'MODEL_REGISTRY_PATH',
    'MODEL_REGISTRY_JSON',
    'MODEL_AUTO_FETCH',
    'DEV_API_KEY',
    'ADMIN_TOKEN',
    'KAFKA_BROKERS',
    'MONGODB_URI',
    'REDIS_URL',
  ])
    delete env[name];
  // Any free port instead of 8080: other runs may hold it.
  return { ...env, GATEWAY_PORT: '0', LOG_LEVEL: 'warn' };
}

interface Started {
  process: ChildProcess;
  url: string;
  apiKey: string;
  adminToken: string;
  output: () => string;
}

/** Starts the mesh and reads what it prints: the URL, the API key and the admin token. */
function startAsReadmeSays(): Promise<Started> {
  const child = spawn(process.execPath, [path.join(REPO, 'deploy/embedded/dist/src/index.js')], {
    env: userEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /running \(embedded mode\) at (http:\/\/\S+)/.exec(output)?.[1];
      const apiKey = /API key \(organization "dev"\):\s+(sk_\S+)/.exec(output)?.[1];
      const adminToken = /Admin token[^:]*:\s+(adm_\S+)/.exec(output)?.[1];
      if (url && apiKey && adminToken)
        resolve({
          process: child,
          url: url.replace('localhost', '127.0.0.1'),
          apiKey,
          adminToken,
          output: () => output,
        });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`npm start ended (${code}):\n${output}`)));
  });
}

describe('e2e: the first start as the README says, and the official openai SDKs against its local models', function () {
  this.timeout(300_000);
  let mesh: Started;
  let client: OpenAI;

  before(async function () {
    mesh = await startAsReadmeSays();
    client = new OpenAI({ baseURL: `${mesh.url}/v1`, apiKey: mesh.apiKey, maxRetries: 0 });
  });

  after(async () => {
    if (!mesh) return;
    const exited = new Promise((resolve) => mesh.process.once('exit', resolve));
    mesh.process.kill('SIGTERM');
    await exited;
  });

  async function otherOrganization(id: string): Promise<OpenAI> {
    const admin = {
      authorization: `Bearer ${mesh.adminToken}`,
      'content-type': 'application/json',
    };
    const created = await fetch(`${mesh.url}/api/v2/admin/organizations`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ id, name: id, monthlyTokenQuota: 10_000_000 }),
    });
    expect(created.status).to.equal(201);
    const issued = await fetch(`${mesh.url}/api/v2/admin/organizations/${id}/keys`, {
      method: 'POST',
      headers: admin,
      body: '{}',
    });
    const { key } = (await issued.json()) as { key: string };
    return new OpenAI({ baseURL: `${mesh.url}/v1`, apiKey: key, maxRetries: 0 });
  }

  it('names the chat model that answers, and lists both local models on /v1/models', async () => {
    expect(mesh.output()).to.match(new RegExp(`model\\s+${CHAT} \\(llama-cpp\\)`));
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).to.include.members([CHAT, EMBED, 'builtin']);
  });

  it('answers a chat completion with the real model, with its usage', async () => {
    const completion = await client.chat.completions.create({
      model: CHAT,
      messages: [{ role: 'user', content: 'Name three colours.' }],
      max_tokens: 40,
    });
    expect(completion.model).to.equal(CHAT);
    expect(completion.choices[0]!.message.content).to.be.a('string').that.is.not.empty;
    expect(completion.usage!.prompt_tokens).to.be.above(5);
    expect(completion.usage!.completion_tokens).to.be.within(1, 40);
  });

  it('streams a chat completion: the chunks make the answer, the usage chunk comes last', async () => {
    const stream = await client.chat.completions.create({
      model: CHAT,
      messages: [{ role: 'user', content: 'Say hello to a new customer.' }],
      max_tokens: 30,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text.trim()).to.not.equal('');
    expect(usage!.completion_tokens).to.be.within(1, 30);
  });

  it('answers /v1/embeddings with the real embedding model: unit vectors that find by meaning', async () => {
    const texts = [
      'what does a full service cost',
      'Full service: 89 EUR, brakes and gears adjusted',
      'Opening hours: Monday to Friday 9:00 to 18:00',
    ];
    const result = await client.embeddings.create({ model: EMBED, input: texts });
    const [question, price, hours] = result.data.map((d) => d.embedding);
    expect(question).to.have.length(384);
    const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(dot(question!, price!)).to.be.above(dot(question!, hours!));
    expect(result.usage.prompt_tokens).to.be.above(10);
  });

  it('finds a price by meaning in a knowledge base, with no model configured', async () => {
    const headers = {
      authorization: `X-API-Key ${mesh.apiKey}`,
      'content-type': 'application/json',
    };
    const base = `${mesh.url}/api/v2/knowledge/collections`;
    await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bike-shop', kind: 'articles' }),
    });
    const imported = await fetch(`${base}/bike-shop/import`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-ndjson' },
      body: [
        { id: 'prices', title: 'Full service', body: 'Full service: 89 EUR. Ready in two days.' },
        { id: 'hours', title: 'Opening hours', body: 'Monday to Friday 9:00 to 18:30.' },
        { id: 'rental', title: 'Rental bikes', body: 'City bikes rent for 12 EUR a day.' },
      ]
        .map((d) => JSON.stringify(d))
        .join('\n'),
    });
    expect(imported.status).to.equal(200);
    const found = (await (
      await fetch(`${base}/bike-shop/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: 'what does a full service cost' }),
      })
    ).json()) as { results: Array<{ id: string; similarity: number | null }> };
    expect(found.results[0]!.id).to.equal('prices');
    expect(found.results[0]!.similarity).to.be.a('number');
  });

  it("gives the same answer to the same request and seed, interleaved with other organizations' requests", async () => {
    const other = await otherOrganization('seed-neighbour');
    const third = await otherOrganization('seed-neighbour-2');
    const ask = (api: OpenAI, seed: number, content: string) =>
      api.chat.completions
        .create({
          model: CHAT,
          messages: [{ role: 'user', content }],
          max_tokens: 32,
          temperature: 1,
          seed,
        })
        .then((c) => c.choices[0]!.message.content);
    const first = await ask(client, 42, 'Write one sentence about rain.');
    const [again, , , last] = await Promise.all([
      ask(client, 42, 'Write one sentence about rain.'),
      ask(other, 7, 'Describe a cat.'),
      ask(third, 9, 'Write a haiku about the sea.'),
      ask(other, 42, 'Write one sentence about rain.'),
    ]);
    const alone = await ask(client, 42, 'Write one sentence about rain.');
    expect(again).to.equal(first);
    expect(last).to.equal(first);
    expect(alone).to.equal(first);
  });

  const refused: Array<[string, Record<string, unknown>]> = [
    ['tools', { tools: [{ type: 'function', function: { name: 'find_bikes' } }] }],
    ['tool_choice', { tool_choice: 'required' }],
    ['logprobs', { logprobs: true }],
    ['top_logprobs', { top_logprobs: 3 }],
    ['presence_penalty', { presence_penalty: 0.5 }],
    ['frequency_penalty', { frequency_penalty: 0.5 }],
    ['logit_bias', { logit_bias: { '1234': 5 } }],
    ['n', { n: 2 }],
    ['response_format', { response_format: { type: 'json_object' } }],
    ['reasoning_effort', { reasoning_effort: 'low' }],
  ];
  for (const [parameter, extra] of refused) {
    it(`refuses ${parameter} with 422 unsupported naming it (the SDK's UnprocessableEntityError)`, async () => {
      const error = await client.chat.completions
        .create({
          model: CHAT,
          messages: [{ role: 'user', content: 'Hello' }],
          ...extra,
        } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(OpenAI.UnprocessableEntityError);
      expect(error).to.deep.include({ status: 422, param: parameter, code: 'unsupported' });
    });
  }

  it('accepts values that ask for nothing (logprobs false, penalties 0, empty tools)', async () => {
    const completion = await client.chat.completions.create({
      model: CHAT,
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 5,
      logprobs: false,
      presence_penalty: 0,
      frequency_penalty: 0,
      tools: [],
      user: 'u-1',
    });
    expect(completion.choices).to.have.length(1);
  });

  it("answers a prompt over the model's context with 400 context_length_exceeded (the SDK's BadRequestError)", async () => {
    for (const content of [
      'word '.repeat(6000), // over the window by any count
      '1234567 '.repeat(700), // under it by the gateway's count, over it by the model's tokenizer
    ]) {
      const error = await client.chat.completions
        .create({ model: CHAT, messages: [{ role: 'user', content }] })
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(OpenAI.BadRequestError);
      expect(error).to.deep.include({
        status: 400,
        code: 'context_length_exceeded',
        param: 'messages',
      });
    }
  });

  it('refuses builtin and unknown models, naming the models that can', async () => {
    const builtin = await client.chat.completions
      .create({ model: 'builtin', messages: [{ role: 'user', content: 'Hello' }] })
      .catch((e: unknown) => e);
    expect(builtin).to.be.instanceOf(OpenAI.UnprocessableEntityError);
    expect((builtin as Error).message).to.include(`models that can: ${CHAT}`);
    const unknown = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'hi' })
      .catch((e: unknown) => e);
    expect(unknown).to.be.instanceOf(OpenAI.NotFoundError);
    expect(unknown).to.deep.include({ code: 'model_not_found' });
    expect((unknown as Error).message).to.include(EMBED);
  });

  it('the official Python SDK gets the same: real chat (JSON and stream), embeddings, the seed, a 422 and the 400', async function () {
    const python = pythonWithOpenAi();
    if (!python) {
      if (process.env.CI) throw new Error('no Python with the openai package (see .ci/run)');
      this.skip();
    }
    const { stdout } = await promisify(execFile)(
      python!,
      [path.join(REPO, 'test', 'python', 'local_models_check.py')],
      {
        env: {
          ...process.env,
          OPENAI_BASE_URL: `${mesh.url}/v1`,
          OPENAI_API_KEY: mesh.apiKey,
          CHAT_MODEL: CHAT,
          EMBEDDING_MODEL: EMBED,
        },
        timeout: 240_000,
      },
    );
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).to.deep.equal({ ok: true });
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import OpenAI from 'openai';
import { AppError } from '@switchyard/shared';
import { FakeLlmServer } from '@switchyard/shared/testing';
import { BUILTIN_MODEL_INFO } from '../src/models/builtin/builtin-model';
import { ChatClient } from '../src/models/openai/chat-client';
import { upstreamFetch } from '../src/models/openai/upstream-fetch';
import { Semaphore } from '../src/models/semaphore';

/** A ChatClient on the server at baseURL, through the SDK (our fetch) and the relay; no retries. */
function chatClientOn(baseURL: string): ChatClient {
  return new ChatClient({
    client: new OpenAI({ baseURL, apiKey: 'sk-fake', maxRetries: 0, fetch: upstreamFetch }),
    info: { ...BUILTIN_MODEL_INFO, id: 'fake', provider: 'openai-compatible' },
    upstreamModel: 'up-fake',
    timeoutMs: 10_000,
    maxRetries: 0,
    semaphore: new Semaphore(4, 'fake'),
    relay: {
      url: `${baseURL}/chat/completions`,
      headers: { authorization: 'Bearer sk-fake', 'content-type': 'application/json' },
    },
  });
}

describe('ChatClient against an OpenAI-compatible server', () => {
  let fake: FakeLlmServer;
  let chat: ChatClient;

  before(async () => {
    fake = new FakeLlmServer('sk-fake');
    const baseURL = await fake.start();
    chat = chatClientOn(baseURL);
  });
  after(() => fake.close());

  it('answers through the upstream fetch with the text and the provider-reported usage', async () => {
    const messages = [{ role: 'user' as const, content: 'Describe a trail shoe' }];
    const output = await chat.complete(messages, 100);
    expect(output.text).to.equal(FakeLlmServer.answerFor('up-fake', messages));
    expect(output.usage).to.include({ prompt_tokens: 1200, completion_tokens: 345 });
  });

  it("stops waiting for the provider as soon as the caller cancels (unavailable), not at the provider's pace", async () => {
    fake.script('up-fake', { kind: 'slow', delayMs: 3000 });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const startedAt = Date.now();
    const error = await chat
      .complete([{ role: 'user', content: 'hello' }], 100, { signal: caller.signal })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'unavailable');
    expect(Date.now() - startedAt).to.be.below(1500);
  });

  it('streams on the relay transport: the deltas make the answer, with the provider-reported usage', async () => {
    const messages = [{ role: 'user' as const, content: 'Describe a trail shoe' }];
    const deltas: string[] = [];
    const output = await chat.stream(messages, 100, async (delta) => {
      deltas.push(delta);
    });
    expect(deltas.join('')).to.equal(FakeLlmServer.answerFor('up-fake', messages));
    expect(output.text).to.equal(deltas.join(''));
    expect(output.usage).to.include({ prompt_tokens: 1200, completion_tokens: 345 });
    expect(fake.requests.at(-1)).to.include({ model: 'up-fake', stream: true, includeUsage: true });
  });
});

/** A provider that answers as each test says, noting what it was asked and when a request's connection closed. */
class ScriptedProvider {
  readonly server: http.Server;
  readonly paths: string[] = [];
  /** Requests whose connection closed before their answer ended. */
  readonly cutOff: string[] = [];
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end();

  constructor() {
    this.server = http.createServer((req, res) => {
      this.paths.push(req.url ?? '');
      res.on('close', () => {
        if (!res.writableFinished) this.cutOff.push(req.url ?? '');
      });
      req.resume();
      req.on('end', () => this.handle(req, res));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'up-fake',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

describe("ChatClient: the upstream HTTP client's cancellation, redirects and refusals", () => {
  let provider: ScriptedProvider;
  let chat: ChatClient;

  beforeEach(async () => {
    provider = new ScriptedProvider();
    const baseURL = await provider.start();
    chat = chatClientOn(baseURL);
  });
  afterEach(() => provider.close());

  const settle = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => e,
    );
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('a caller that cancels mid-stream closes the upstream request on the relay path', async () => {
    provider.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
    };
    const caller = new AbortController();
    const error = await settle(
      chat.relay('{}', { signal: caller.signal }, async (answer) => {
        for await (const _chunk of answer.body) caller.abort();
      }),
    );
    expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'unavailable');
    await until(() => provider.cutOff.length > 0);
    expect(provider.cutOff).to.deep.equal(['/chat/completions']);
  });

  it('a caller that cancels before the answer closes the upstream request on the SDK path', async () => {
    provider.handle = () => undefined; // never answers
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const error = await settle(
      chat.complete([{ role: 'user', content: 'hello' }], 10, { signal: caller.signal }),
    );
    expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'unavailable');
    await until(() => provider.cutOff.length > 0);
    expect(provider.cutOff).to.deep.equal(['/chat/completions']);
  });

  it('does not follow a redirect, on either path: the provider answered 307 (upstream_error)', async () => {
    provider.handle = (req, res) => {
      if (req.url === '/elsewhere') res.end(COMPLETION);
      else res.writeHead(307, { location: '/elsewhere' }).end();
    };
    const relayed = await settle(chat.relay('{}', {}, (answer) => answer.body.text()));
    const completed = await settle(chat.complete([{ role: 'user', content: 'hello' }], 10));
    for (const error of [relayed, completed]) {
      expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'upstream_error');
      expect((error as AppError).details[0]).to.include({ status: 307 });
    }
    expect(provider.paths).to.deep.equal(['/chat/completions', '/chat/completions']);
  });

  it('reads a JSON refusal whole and maps it with its status and message', async () => {
    provider.handle = (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bad model', type: 'invalid_request_error' } }));
    };
    const relayed = await settle(chat.relay('{}', {}, (answer) => answer.body.text()));
    const completed = await settle(chat.complete([{ role: 'user', content: 'hello' }], 10));
    for (const error of [relayed, completed]) {
      expect(error).to.be.instanceOf(AppError).and.to.have.property('code', 'upstream_error');
      expect((error as AppError).details[0]).to.include({ status: 400, reason: 'bad model' });
    }
  });
});

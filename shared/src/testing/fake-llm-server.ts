import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake does for one request; unscripted requests get { kind: 'ok' }. */
export type Step =
  | { kind: 'ok'; text?: string; reportUsage?: boolean; delayMs?: number }
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  | { kind: 'slow'; delayMs: number }
  /** Streams `afterChunks` content chunks, then destroys the socket (non-streamed: at once). */
  | { kind: 'break'; afterChunks: number }
  /** Asks for tool calls instead of answering (finish_reason tool_calls), reporting REPORTED usage. */
  | { kind: 'tool_calls'; calls: Array<{ name: string; arguments: object }> };

export interface RecordedRequest {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  authorization: string;
  // content is null on assistant turns that only called tools.
  messages: Array<{ role: string; content: string; tool_calls?: unknown[]; tool_call_id?: string }>;
  maxTokens: number | undefined;
  /** The output cap when sent as max_completion_tokens (o-series, gpt-5). */
  maxCompletionTokens: number | undefined;
  /** Names of the tools offered. */
  tools: string[];
  /** The body as the fake received it (every parameter, e.g. n, stop, temperature). */
  body: Record<string, unknown>;
  /** Stop sequences sent (`stop`). */
  stop: string[];
  at: number;
}

/** Usage the fake reports (deliberately not what the shared tokenizer would count). */
export const REPORTED = { prompt_tokens: 1200, completion_tokens: 345 };

interface ChatBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
}

/** The answer up to the first stop sequence, as OpenAI's API cuts it (the sequence left out). */
function cutAtStop(text: string, stop: string[]): string {
  const ends = stop.map((s) => text.indexOf(s)).filter((index) => index >= 0);
  return ends.length > 0 ? text.slice(0, Math.min(...ends)) : text;
}

function stopsOf(body: ChatBody): string[] {
  if (body.stop === undefined) return [];
  return (Array.isArray(body.stop) ? body.stop : [body.stop]).filter((s) => s !== '');
}

/** 32 buckets of lower-cased words: texts sharing words are similar. */
function hashedWords(text: string): number[] {
  const vector = new Array<number>(32).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 0;
    for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[hash % 32] = (vector[hash % 32] ?? 0) + 1;
  }
  return vector;
}

export function embeddingTokens(inputs: string[]): number {
  return inputs.reduce((sum, text) => sum + (text.match(/\S+/g)?.length ?? 0), 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A local OpenAI-compatible server: POST /v1/chat/completions, plain or SSE-streamed (with a final
 * usage chunk when stream_options.include_usage), scripted failures per upstream model name.
 */
export class FakeLlmServer {
  readonly requests: RecordedRequest[] = [];
  /** Requests being answered right now, per model, and the most seen at once. */
  readonly active = new Map<string, number>();
  readonly maxActive = new Map<string, number>();
  private readonly scripts = new Map<string, Step[]>();
  private readonly holds = new Map<string, Promise<void>>();
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  /** `keyless` models answer without a key check, like a local Ollama or llama.cpp server. */
  /** Inputs of every POST /v1/embeddings, in order. */
  readonly embeddingInputs: string[][] = [];
  /** Vector of a text for /v1/embeddings (tests choose what "similar" means). */
  embed: (text: string) => number[] = (text) => hashedWords(text);
  /** The usage chat completions report (default REPORTED). */
  reported = { ...REPORTED };

  constructor(
    private readonly apiKey: string,
    private readonly keyless: string[] = [],
  ) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next requests for `model` follow these steps, in order. */
  script(model: string, ...steps: Step[]): void {
    this.scripts.set(model, [...(this.scripts.get(model) ?? []), ...steps]);
  }

  /** Requests for `model` are not answered until the returned function is called. */
  hold(model: string): () => void {
    let release!: () => void;
    this.holds.set(model, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.holds.delete(model);
      release();
    };
  }

  reset(): void {
    this.scripts.clear();
    this.requests.length = 0;
    this.active.clear();
    this.maxActive.clear();
    this.embeddingInputs.length = 0;
    this.reported = { ...REPORTED };
  }

  private usage() {
    const { prompt_tokens, completion_tokens } = this.reported;
    return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  }

  requestsFor(model: string): RecordedRequest[] {
    return this.requests.filter((r) => r.model === model);
  }

  static answerFor(model: string, messages: Array<{ content: string }>): string {
    return `Answer from ${model} about ${messages[messages.length - 1]?.content ?? ''}.`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method === 'POST' && req.url === '/v1/embeddings') return this.embeddings(req, res);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return this.json(res, 404, { error: { message: 'not found' } });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatBody;
    this.requests.push({
      model: body.model,
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
      authorization: req.headers.authorization ?? '',
      messages: body.messages,
      maxTokens: body.max_tokens,
      maxCompletionTokens: body.max_completion_tokens,
      tools: (body.tools ?? []).map((t) => t.function.name),
      body: body as unknown as Record<string, unknown>,
      stop: stopsOf(body),
      at: Date.now(),
    });
    if (
      !this.keyless.includes(body.model) &&
      req.headers.authorization !== `Bearer ${this.apiKey}`
    ) {
      return this.json(res, 401, {
        error: {
          message: 'Incorrect API key provided: wr***ey.',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
    }
    const step = this.scripts.get(body.model)?.shift() ?? { kind: 'ok' };
    this.enter(body.model);
    try {
      await this.holds.get(body.model);
      await this.respond(step, body, res);
    } finally {
      this.active.set(body.model, (this.active.get(body.model) ?? 1) - 1);
    }
  }

  private enter(model: string): void {
    const now = (this.active.get(model) ?? 0) + 1;
    this.active.set(model, now);
    this.maxActive.set(model, Math.max(now, this.maxActive.get(model) ?? 0));
  }

  private async respond(step: Step, body: ChatBody, res: http.ServerResponse): Promise<void> {
    if (step.kind === 'status') {
      const headers: Record<string, string> = step.retryAfter
        ? { 'retry-after': step.retryAfter }
        : {};
      return this.json(
        res,
        step.status,
        { error: { message: step.message ?? `scripted ${step.status}`, type: 'server_error' } },
        headers,
      );
    }
    if (step.kind === 'tool_calls')
      return body.stream
        ? this.streamToolCalls(res, body, step.calls)
        : this.toolCalls(res, body, step.calls);
    if (step.kind === 'slow') await sleep(step.delayMs);
    if (step.kind === 'ok' && step.delayMs) await sleep(step.delayMs);
    if (step.kind === 'break' && !body.stream) {
      res.socket?.destroy();
      return;
    }
    const text = cutAtStop(
      (step.kind === 'ok' && step.text) || FakeLlmServer.answerFor(body.model, body.messages),
      stopsOf(body),
    );
    const reportUsage = !(step.kind === 'ok' && step.reportUsage === false);
    if (body.stream)
      return this.stream(
        res,
        body,
        text,
        reportUsage,
        step.kind === 'break' ? step.afterChunks : undefined,
      );
    this.json(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      ...(reportUsage
        ? {
            usage: this.usage(),
          }
        : {}),
    });
  }

  /** OpenAI-compatible embeddings: one vector per input, in order. */
  private async embeddings(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      model: string;
      input: string | string[];
    };
    if (req.headers.authorization !== `Bearer ${this.apiKey}`)
      return this.json(res, 401, { error: { message: 'Incorrect API key provided' } });
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    this.embeddingInputs.push(inputs);
    this.json(res, 200, {
      object: 'list',
      model: body.model,
      data: inputs.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: this.embed(text),
      })),
      // One token per word: deterministic, so tests can check the usage recorded for embeddings.
      usage: { prompt_tokens: embeddingTokens(inputs), total_tokens: embeddingTokens(inputs) },
    });
  }

  private toolCalls(
    res: http.ServerResponse,
    body: ChatBody,
    calls: Array<{ name: string; arguments: object }>,
  ): void {
    const toolCalls = calls.map((c, i) => ({
      id: `call_${this.requests.length}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    }));
    this.json(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: toolCalls },
          finish_reason: 'tool_calls',
        },
      ],
      usage: this.usage(),
    });
  }

  /** Tool calls as OpenAI streams them: the call's id and name first, then its arguments in pieces. */
  private async streamToolCalls(
    res: http.ServerResponse,
    body: ChatBody,
    calls: Array<{ name: string; arguments: object }>,
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (choices: object[], usage?: object) =>
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: body.model, choices, ...(usage ? { usage } : {}) })}\n\n`,
      );
    for (const [index, call] of calls.entries()) {
      const id = `call_${this.requests.length}_${index}`;
      const head = { index, id, type: 'function', function: { name: call.name, arguments: '' } };
      chunk([
        {
          index: 0,
          delta: { role: 'assistant', content: null, tool_calls: [head] },
          finish_reason: null,
        },
      ]);
      const args = JSON.stringify(call.arguments);
      for (let at = 0; at < args.length; at += 8) {
        const piece = { index, function: { arguments: args.slice(at, at + 8) } };
        chunk([{ index: 0, delta: { tool_calls: [piece] }, finish_reason: null }]);
        await sleep(1);
      }
    }
    chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
    if (body.stream_options?.include_usage) chunk([], this.usage());
    res.end('data: [DONE]\n\n');
  }

  private async stream(
    res: http.ServerResponse,
    body: ChatBody,
    text: string,
    reportUsage: boolean,
    breakAfter?: number,
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object) =>
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
      );
    chunk({ role: 'assistant', content: '' });
    const words = text.match(/\S+\s*/g) ?? [];
    for (const [index, word] of words.entries()) {
      if (breakAfter !== undefined && index >= breakAfter) {
        await sleep(50);
        res.socket?.destroy();
        return;
      }
      chunk({ content: word });
      await sleep(2);
    }
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    );
    if (reportUsage && body.stream_options?.include_usage) {
      const usage = this.usage();
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  }

  private json(
    res: http.ServerResponse,
    status: number,
    body: object,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}

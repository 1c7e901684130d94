import { AppError, countTokens } from '@switchyard/shared';
import type OpenAI from 'openai';
import type { Semaphore } from '../semaphore';
import type {
  CallOptions,
  ChatRelay,
  ChatMessage,
  DeltaSink,
  ModelInfo,
  ToolSpec,
} from '../text-model';
import { countPromptTokens, spentOf, withSpent } from '../usage';
import { statusOf, timeoutError, upstreamError, type ProviderTarget } from './errors';
import { backoffMs, isRetryableStatus, retryAfterMs } from './retry-policy';
import { APIError } from 'openai';
import { request, type Dispatcher } from 'undici';
import type { ChatBackend, ChatOutput, Sampling } from '../chat-model';
import type { OutputTokenParam } from '../config/catalog';
import { upstreamPool } from './upstream-fetch';
import { ChatStreamDeltas } from './chat-stream-deltas';

/** Where the provider's chat completions endpoint is and what every request to it carries. */
export interface RelayTarget {
  url: string;
  headers: Record<string, string>;
}

/** The provider's answer, as it arrives (2xx only: other statuses become errors). */
export type RelayResponse = Dispatcher.ResponseData;

export interface ChatClientOptions {
  client: OpenAI;
  info: ModelInfo;
  /** The model name the provider knows (for Azure: ignored, the deployment decides). */
  upstreamModel: string;
  /** The request parameter carrying the output cap (o-series and gpt-5 models refuse max_tokens). */
  outputTokenParam?: OutputTokenParam;
  timeoutMs: number;
  maxRetries: number;
  semaphore: Semaphore;
  /** The endpoint that OpenAI chat completions bodies are relayed to as they are (the /v1 path). */
  relay: RelayTarget;
}

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Messages in the provider's shape: tool calls and tool results included. */
export function wireMessages(messages: ChatMessage[]): WireMessage[] {
  return messages.map((m): WireMessage => {
    if (m.role === 'tool')
      return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
    if (m.role === 'assistant' && m.toolCalls?.length) {
      return {
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    }
    return { role: m.role, content: m.content } as WireMessage;
  });
}

function wireTools(tools: ToolSpec[] | undefined) {
  return tools && tools.length > 0
    ? {
        tools: tools.map((t) => ({
          type: 'function' as const,
          function: { name: t.name, description: t.description, parameters: t.parameters },
        })),
      }
    : {};
}

/** One attempt's abort signal plus a way to restart its timeout (streams: while chunks arrive). */
export interface Attempt {
  signal: AbortSignal;
  touch: () => void;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AppError('unavailable', 'the call was cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A provider's refusal as the SDK would have raised it, so one retry policy and mapping serve both paths. */
async function relayFailure(response: RelayResponse): Promise<APIError> {
  const text = await response.body.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers))
    if (typeof value === 'string') headers.set(name, value);
  return APIError.generate(
    response.statusCode,
    parsed as object | undefined,
    parsed === undefined ? text || undefined : undefined,
    headers,
  );
}

/**
 * Chat completions against one OpenAI-compatible model with an exact retry policy: the SDK's
 * own retries are off; 429, 5xx and connection failures are retried up to maxRetries times with
 * full-jitter backoff or the provider's Retry-After; each attempt has its own timeout, bounded by
 * the call deadline, and holds one of the model's concurrency slots.
 */
export class ChatClient implements ChatBackend, ChatRelay {
  private readonly target: ProviderTarget;

  constructor(private readonly options: ChatClientOptions) {
    this.target = { provider: options.info.provider, model: options.info.id };
  }

  /** { max_tokens: n } or { max_completion_tokens: n }, as the model takes it. */
  private outputCap(maxTokens: number): { max_tokens: number } | { max_completion_tokens: number } {
    return this.options.outputTokenParam === 'max_completion_tokens'
      ? { max_completion_tokens: maxTokens }
      : { max_tokens: maxTokens };
  }

  async complete(
    messages: ChatMessage[],
    maxTokens: number,
    call: CallOptions = {},
    tools?: ToolSpec[],
    sampling?: Sampling,
  ): Promise<ChatOutput> {
    return this.withRetries(call, async ({ signal }) => {
      const completion = await this.options.client.chat.completions.create(
        {
          model: this.options.upstreamModel,
          messages: wireMessages(messages),
          ...this.outputCap(maxTokens),
          ...wireTools(tools),
          ...sampling,
        },
        { signal },
      );
      const message = completion.choices[0]?.message;
      const toolCalls = (message?.tool_calls ?? []).flatMap((c) =>
        c.type === 'function'
          ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }]
          : [],
      );
      return {
        text: message?.content ?? '',
        usage: completion.usage,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      };
    });
  }

  get upstreamModel(): string {
    return this.options.upstreamModel;
  }

  get outputTokenParam(): OutputTokenParam {
    return this.options.outputTokenParam ?? 'max_tokens';
  }

  /**
   * Sends a chat completions body as it is, without the SDK: headers and URL are built once per
   * model, the answer is handed to `read` unparsed (inside the attempt: its concurrency slot and
   * timeout, which `touch` restarts). A non-2xx answer is retried like complete(), then thrown.
   */
  relay<T>(
    body: string,
    call: CallOptions,
    read: (response: RelayResponse, attempt: Attempt) => Promise<T>,
  ): Promise<T> {
    const { url, headers } = this.options.relay;
    return this.withRetries(call, async (attempt) => {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        signal: attempt.signal,
        dispatcher: upstreamPool,
      });
      if (response.statusCode >= 300) throw await relayFailure(response);
      return read(response, attempt);
    });
  }

  /** Vectors from the provider's /embeddings, in input order, with the tokens the provider counted. */
  async embed(
    inputs: string[],
    call: CallOptions = {},
  ): Promise<{ vectors: number[][]; tokensInput: number }> {
    return this.withRetries(call, async ({ signal }) => {
      // 'float' explicitly: the SDK otherwise asks for base64, which Ollama and other local servers do not send.
      const response = await this.options.client.embeddings.create(
        { model: this.options.upstreamModel, input: inputs, encoding_format: 'float' },
        { signal },
      );
      const data = [...response.data].sort((a, b) => a.index - b.index);
      if (data.length !== inputs.length)
        throw new AppError(
          'upstream_error',
          `model ${this.target.model}: the provider returned ${data.length} vectors for ${inputs.length} inputs`,
        );
      return {
        vectors: data.map((d) => d.embedding),
        tokensInput: response.usage?.prompt_tokens ?? countTokens(inputs.join('\n')),
      };
    });
  }

  /**
   * Streams deltas to onDelta. A failure before the first delta is retried like complete();
   * after one it is not (the caller already has part of the text): it fails with the tokens spent.
   */
  async stream(
    messages: ChatMessage[],
    maxTokens: number,
    onDelta: DeltaSink,
    call: CallOptions = {},
    sampling?: Sampling,
  ): Promise<ChatOutput> {
    return this.withRetries(call, async (attempt) => {
      const output: ChatOutput & { deltas: number } = { text: '', usage: undefined, deltas: 0 };
      try {
        await this.readStream(messages, maxTokens, onDelta, attempt, output, sampling);
      } catch (error) {
        if (output.deltas === 0) throw error;
        throw this.brokenStream(error, messages, output);
      }
      return output;
    });
  }

  /**
   * On the /v1 path's transport (relay(): undici, no SDK): the provider's events are read as they
   * arrive and each network read's text goes to onDelta at once (see ChatStreamDeltas).
   */
  private async readStream(
    messages: ChatMessage[],
    maxTokens: number,
    onDelta: DeltaSink,
    attempt: Attempt,
    output: ChatOutput & { deltas: number },
    sampling?: Sampling,
  ): Promise<void> {
    const { url, headers } = this.options.relay;
    const response = await request(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        model: this.options.upstreamModel,
        messages: wireMessages(messages),
        ...this.outputCap(maxTokens),
        ...sampling,
        stream: true,
        stream_options: { include_usage: true },
      }),
      signal: attempt.signal,
      dispatcher: upstreamPool,
    });
    if (response.statusCode >= 300) throw await relayFailure(response);
    const events = new ChatStreamDeltas();
    const take = async (delta: string) => {
      if (events.usage) output.usage = events.usage;
      if (!delta) return;
      output.text += delta;
      output.deltas++;
      await onDelta(delta);
    };
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      attempt.touch();
      await take(events.push(chunk));
    }
    await take(events.end());
    if (attempt.signal.aborted) throw new Error('the stream was aborted');
  }

  /** The stream broke after text reached the caller: 502 with the tokens of what was produced. */
  private brokenStream(error: unknown, messages: ChatMessage[], output: ChatOutput): AppError {
    const cause = error instanceof AppError ? error : upstreamError(error, this.target);
    const broken = new AppError(
      cause.code,
      `${cause.message} (the stream broke after part of the answer was sent)`,
      cause.details,
    );
    return withSpent(broken, {
      model: this.options.info,
      tokensInput: output.usage?.prompt_tokens ?? countPromptTokens(messages),
      tokensOutput: output.usage?.completion_tokens ?? countTokens(output.text),
    });
  }

  private async withRetries<T>(
    call: CallOptions,
    run: (attempt: Attempt) => Promise<T>,
  ): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.attempt(call, run);
      } catch (error) {
        if (error instanceof AppError) throw error;
        const status = statusOf(error);
        if (!isRetryableStatus(status) || retry >= this.options.maxRetries)
          throw upstreamError(error, this.target);
        const wait =
          retryAfterMs(error instanceof APIError ? error.headers : undefined) ?? backoffMs(retry);
        // Waiting past the caller's deadline would only turn this failure into a timeout.
        if (call.deadline !== undefined && Date.now() + wait >= call.deadline)
          throw upstreamError(error, this.target);
        await sleep(wait, call.signal);
      }
    }
  }

  private async attempt<T>(call: CallOptions, run: (attempt: Attempt) => Promise<T>): Promise<T> {
    const release = await this.options.semaphore.acquire(call.deadline, call.signal);
    const budget = Math.min(
      this.options.timeoutMs,
      call.deadline === undefined ? Infinity : call.deadline - Date.now(),
    );
    if (budget <= 0) {
      release();
      throw timeoutError(this.target, 0);
    }
    const controller = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, budget);
    };
    touch();
    // The caller's cancel is forwarded by a listener removed when the attempt ends, not with
    // AbortSignal.any: Node keeps a composite signal that has an abort listener (the SDK adds one
    // and never removes it) alive until it aborts, so a finished call's signal was never freed.
    const forward = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', forward, { once: true });
    if (call.signal?.aborted) forward();
    try {
      return await run({ signal: controller.signal, touch });
    } catch (error) {
      // Keep the tokens a stream spent before it stalled or was cancelled.
      const spent = spentOf(error);
      const mapped = timedOut
        ? timeoutError(this.target, Math.round(budget))
        : call.signal?.aborted
          ? new AppError('unavailable', 'the call was cancelled')
          : undefined;
      if (!mapped) throw error;
      throw spent ? withSpent(mapped, spent) : mapped;
    } finally {
      call.signal?.removeEventListener('abort', forward);
      clearTimeout(timer);
      release();
    }
  }
}

/**
 * A chat answer is stored once, as the chat.completion a JSON call gets; a stream's
 * chat.completion.chunk events are put together into it, and a hit on a stream replays it as
 * chunks (role and text in one, then the finish reason, then the usage when asked for).
 */

interface ToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface ChoiceDelta {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  tool_calls?: Array<ToolCall & { index?: number }>;
}

interface ChunkChoice {
  index: number;
  delta?: ChoiceDelta;
  logprobs?: { content?: unknown[] | null; refusal?: unknown[] | null } | null;
  finish_reason?: string | null;
}

interface Chunk {
  id?: string;
  created?: number;
  model?: string;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  choices?: ChunkChoice[];
  usage?: unknown;
  error?: unknown;
}

interface CompletionChoice {
  index: number;
  message: {
    role: string;
    content: string | null;
    refusal?: string | null;
    tool_calls?: ToolCall[];
  };
  logprobs: { content: unknown[] | null; refusal?: unknown[] | null } | null;
  finish_reason: string | null;
}

interface Completion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage?: unknown;
  system_fingerprint?: string | null;
  service_tier?: string | null;
}

/** The JSON data of each `data:` line of a Server-Sent Events text, [DONE] aside. */
function dataOf(events: string): unknown[] {
  const data: unknown[] = [];
  for (const line of events.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const text = line.slice(5).trim();
    if (text && text !== '[DONE]') data.push(JSON.parse(text));
  }
  return data;
}

function choiceOf(choices: Map<number, CompletionChoice>, index: number): CompletionChoice {
  let choice = choices.get(index);
  if (!choice) {
    choice = {
      index,
      message: { role: 'assistant', content: null },
      logprobs: null,
      finish_reason: null,
    };
    choices.set(index, choice);
  }
  return choice;
}

function addToolCalls(message: CompletionChoice['message'], deltas: ChoiceDelta['tool_calls']) {
  for (const [position, delta] of (deltas ?? []).entries()) {
    const calls = (message.tool_calls ??= []);
    const index = delta.index ?? position;
    const call = (calls[index] ??= { type: 'function', function: { name: '', arguments: '' } });
    if (delta.id) call.id = delta.id;
    if (delta.type) call.type = delta.type;
    call.function!.name += delta.function?.name ?? '';
    call.function!.arguments += delta.function?.arguments ?? '';
  }
}

function addChoice(choice: CompletionChoice, chunk: ChunkChoice): void {
  const delta = chunk.delta ?? {};
  if (delta.role) choice.message.role = delta.role;
  if (typeof delta.content === 'string')
    choice.message.content = (choice.message.content ?? '') + delta.content;
  if (typeof delta.refusal === 'string')
    choice.message.refusal = (choice.message.refusal ?? '') + delta.refusal;
  addToolCalls(choice.message, delta.tool_calls);
  if (chunk.logprobs) {
    choice.logprobs ??= { content: [] };
    choice.logprobs.content = [
      ...(choice.logprobs.content ?? []),
      ...(chunk.logprobs.content ?? []),
    ];
  }
  if (chunk.finish_reason) choice.finish_reason = chunk.finish_reason;
}

/**
 * The chat.completion a finished stream's events amount to; undefined for a stream that reported
 * an error or carried no answer (neither is cached). Its usage is the stream's usage chunk, or
 * (a stream without include_usage) what the call reported spent.
 */
export function completionOfEvents(
  events: string,
  spent: { tokensInput: number; tokensOutput: number },
): string | undefined {
  const chunks = dataOf(events) as Chunk[];
  if (chunks.length === 0 || chunks.some((chunk) => chunk.error !== undefined)) return undefined;
  const choices = new Map<number, CompletionChoice>();
  let usage: unknown = {
    prompt_tokens: spent.tokensInput,
    completion_tokens: spent.tokensOutput,
    total_tokens: spent.tokensInput + spent.tokensOutput,
  };
  for (const chunk of chunks) {
    for (const choice of chunk.choices ?? []) addChoice(choiceOf(choices, choice.index), choice);
    if (chunk.usage) usage = chunk.usage;
  }
  const first = chunks[0]!;
  if (choices.size === 0) return undefined;
  const completion: Completion = {
    id: first.id ?? '',
    object: 'chat.completion',
    created: first.created ?? 0,
    model: first.model ?? '',
    choices: [...choices.values()].sort((a, b) => a.index - b.index),
    usage,
    ...(first.system_fingerprint ? { system_fingerprint: first.system_fingerprint } : {}),
    ...(first.service_tier ? { service_tier: first.service_tier } : {}),
  };
  return JSON.stringify(completion);
}

function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** A stored chat.completion as the events of a stream: the answer of each choice, its finish, the usage if asked. */
export function eventsOfCompletion(answer: string, includeUsage: boolean): string {
  const completion = JSON.parse(answer) as Completion;
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    ...(completion.system_fingerprint ? { system_fingerprint: completion.system_fingerprint } : {}),
  };
  let events = '';
  for (const choice of completion.choices) {
    const { role, content, refusal, tool_calls } = choice.message;
    const delta = {
      role,
      content,
      ...(refusal ? { refusal } : {}),
      ...(tool_calls ? { tool_calls: tool_calls.map((call, index) => ({ index, ...call })) } : {}),
    };
    const index = choice.index;
    events += frame({
      ...base,
      choices: [{ index, delta, logprobs: choice.logprobs, finish_reason: null }],
    });
    events += frame({
      ...base,
      choices: [{ index, delta: {}, logprobs: null, finish_reason: choice.finish_reason }],
    });
  }
  if (includeUsage && completion.usage)
    events += frame({ ...base, choices: [], usage: completion.usage });
  return `${events}data: [DONE]\n\n`;
}

import { useRef, useState } from 'preact/hooks';
import { answerOf, get, send, type ModelInfo } from '../api';
import { formatCost, formatInteger } from '../format';
import {
  Button,
  Card,
  ChatLog,
  StreamToggle,
  CopyButton,
  Field,
  FormNotice,
  Linked,
  Loading,
  PageHeader,
  useForm,
  useLoad,
  type ChatMessage,
} from '../ui';

type Mode = 'generate' | 'transform' | 'chat';
type Action = 'summarize' | 'reformat' | 'translate';

const MODES: Array<{ mode: Mode; label: string }> = [
  { mode: 'generate', label: 'Generate' },
  { mode: 'transform', label: 'Transform' },
  { mode: 'chat', label: 'Chat' },
];

const FORMATS = ['paragraph', 'bullet_list', 'numbered_list', 'markdown', 'plain'];

/** The form field each request field is shown at (the API names them by JSON pointer). */
const FIELD_IDS: Record<string, string> = {
  '/model': 'pg-model',
  '/prompt': 'pg-prompt',
  '/max_length': 'pg-max',
  '/text': 'pg-text',
  '/format': 'pg-format',
  '/source_language': 'pg-source',
  '/target_language': 'pg-language',
  '/messages': 'pg-message',
};

function fieldOf(pointer: string): string | undefined {
  return FIELD_IDS[pointer.replace(/^\/messages\/.*$/, '/messages')];
}

/** Models a mode can use: by the capability its call needs. */
function canServe(model: ModelInfo, mode: Mode, action: Action): boolean {
  if (mode === 'transform') return model.capabilities.includes(action);
  // The assistants reply with a chat model, or with the builtin engine (which needs none).
  if (mode === 'chat') return model.capabilities.includes('chat') || model.provider === 'builtin';
  return model.capabilities.includes('generate');
}

/** The languages of a model's installed pairs ("en-es"), as sources and as targets. */
function languagesOf(model: ModelInfo | undefined): { sources: string[]; targets: string[] } {
  const pairs = model?.translationPairs ?? [];
  const unique = (values: string[]) => [...new Set(values)].sort();
  return {
    sources: unique(pairs.map((p) => p.split('-')[0])),
    targets: unique(pairs.map((p) => p.split('-').slice(1).join('-'))),
  };
}

/** What a call cost and used, as the API reported it (or priced from the model list). */
interface CallUsage {
  model: string;
  /** The assistant reports one total (tokensOutput), without a split or a cost. */
  tokensInput?: number;
  tokensOutput: number;
  cost?: number;
  requestId: string;
}

/** The call about to be sent: shown as curl and OpenAI-SDK code, then sent as it is. */
interface PlannedCall {
  path: string;
  body: Record<string, unknown>;
}

function priced(model: ModelInfo | undefined, input: number, output: number): number {
  if (!model) return 0;
  return (input * model.inputPricePerMillion + output * model.outputPricePerMillion) / 1_000_000;
}

function curlOf(call: PlannedCall): string {
  const body = JSON.stringify(call.body, null, 2).replace(/'/g, "'\\''");
  return `curl ${location.origin}${call.path} \\
  -H "Authorization: X-API-Key $SWITCHYARD_API_KEY" \\
  -H "Content-Type: application/json" ${call.body.stream ? '-N ' : ''}\\
  -d '${body}'`;
}

/** The same request through the OpenAI SDK: chat completions on the gateway's /v1 routes. */
function openAiSnippetOf(model: string, messages: ChatMessage[], stream: boolean): string {
  const params = { model, messages, ...(stream ? { stream: true } : {}) };
  return `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: '${location.origin}/v1',
  apiKey: process.env.SWITCHYARD_API_KEY, // sent as Authorization: Bearer <key>
});

const completion = await client.chat.completions.create(${JSON.stringify(params, null, 2)});
${
  stream
    ? "for await (const chunk of completion) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');"
    : 'console.log(completion.choices[0].message.content, completion.usage);'
}`;
}

export function PlaygroundPage() {
  const models = useLoad(() => get<{ models: ModelInfo[] }>('/api/v2/models'));
  const [mode, setMode] = useState<Mode>('generate');
  const [model, setModel] = useState('');
  const [stream, setStream] = useState(true);
  const [prompt, setPrompt] = useState(
    'Write a two-sentence welcome for new customers of a bakery.',
  );
  const [maxLength, setMaxLength] = useState('120');
  const [action, setAction] = useState<Action>('summarize');
  const [text, setText] = useState('');
  const [format, setFormat] = useState('bullet_list');
  const [sourceLanguage, setSourceLanguage] = useState('en');
  const [targetLanguage, setTargetLanguage] = useState('es');
  const [chat, setChat] = useState<ChatMessage[]>([]);
  const [draft, setDraft] = useState('');
  const [sessionId, setSessionId] = useState(newSessionId);
  // The chat call last sent: shown as code once the message box is empty again.
  const [lastChatCall, setLastChatCall] = useState<PlannedCall>();
  const [output, setOutput] = useState('');
  const [usage, setUsage] = useState<CallUsage>();
  const [streaming, setStreaming] = useState(false);
  const abort = useRef<AbortController>();

  const usable = (models.data?.models ?? []).filter((m) => canServe(m, mode, action));
  const chosen = usable.find((m) => m.id === model);
  const modelId = chosen?.id ?? usable.find((m) => m.isDefault)?.id ?? usable[0]?.id ?? '';
  const modelInfo = usable.find((m) => m.id === modelId);

  const chatMessages = (): ChatMessage[] =>
    draft.trim() ? [...chat, { role: 'user', content: draft.trim() }] : chat;

  const planned = (): PlannedCall => {
    if (mode === 'generate')
      return {
        path: '/api/v2/ai/content/generate',
        body: {
          model: modelId,
          prompt,
          ...(maxLength ? { max_length: Number(maxLength) } : {}),
          ...(stream ? { stream: true } : {}),
        },
      };
    if (mode === 'transform')
      return {
        path: '/api/v2/ai/content/transform',
        body: {
          model: modelId,
          action,
          text,
          ...(action === 'reformat' ? { format } : {}),
          ...(action === 'translate'
            ? {
                ...(sourceLanguage.trim() ? { source_language: sourceLanguage.trim() } : {}),
                target_language: targetLanguage.trim(),
              }
            : {}),
        },
      };
    return {
      path: '/api/v2/ai/assistants/chat',
      body: {
        model: modelId,
        user_id: 'console',
        session_id: sessionId,
        messages: draft.trim() ? [{ role: 'user', content: draft.trim() }] : [],
        ...(stream ? { stream: true } : {}),
      },
    };
  };

  const call = mode === 'chat' && !draft.trim() && lastChatCall ? lastChatCall : planned();
  const sdkMessages: ChatMessage[] =
    mode === 'chat'
      ? chatMessages()
      : [{ role: 'user', content: mode === 'generate' ? prompt : text }];
  const sdkStream = stream && mode !== 'transform';

  const form = useForm(
    async () => {
      const request = planned();
      abort.current = new AbortController();
      setOutput('');
      setUsage(undefined);
      const response = await send('POST', request.path, {
        body: request.body,
        signal: abort.current.signal,
      });
      const requestId = response.headers.get('x-request-id') ?? '';
      /** The answer's body: the JSON, or a stream's deltas shown as they come, then its done event. */
      const answer = async <T,>(): Promise<T> => {
        setStreaming(stream);
        try {
          return await answerOf<T>(response, stream, (text) => setOutput((o) => o + text));
        } finally {
          setStreaming(false);
        }
      };
      if (mode === 'generate') {
        const done = await answer<GenerateAnswer>();
        setOutput(done.content);
        setUsage(usageOfGenerate(done, requestId));
        return;
      }
      if (mode === 'transform') {
        const done = (await response.json()) as TransformAnswer;
        setOutput(done.transformed_text ?? done.translated_text ?? '');
        setUsage({
          model: done.usage.model,
          tokensInput: done.usage.tokens_input,
          tokensOutput: done.usage.tokens_output,
          cost: priced(
            models.data?.models.find((m) => m.id === done.usage.model),
            done.usage.tokens_input,
            done.usage.tokens_output,
          ),
          requestId: done.request_id,
        });
        return;
      }
      const sent = chatMessages();
      setLastChatCall(request);
      setChat(sent);
      setDraft('');
      const done = await answer<AssistantAnswer>();
      setChat([...sent, { role: 'assistant', content: done.reply }]);
      setOutput('');
      setUsage({
        model: done.model,
        tokensOutput: done.usage.tokens_used,
        requestId: done.request_id || requestId,
      });
    },
    { fieldOf },
  );
  const { errors, busy } = form;
  const languages = languagesOf(modelInfo);

  return (
    <>
      <PageHeader
        title="Playground"
        description="Try any model this organization may use. Calls are real: they count towards the quota and appear in the usage."
      />
      <div class="segmented" role="group" aria-label="Mode">
        {MODES.map((m) => (
          <button
            type="button"
            key={m.mode}
            aria-pressed={mode === m.mode}
            onClick={() => {
              setMode(m.mode);
              setOutput('');
              setUsage(undefined);
              form.reset();
            }}
          >
            {m.label}
          </button>
        ))}
      </div>
      <div class="grid-2 playground">
        <Card title="Request">
          <form onSubmit={form.onSubmit} noValidate>
            <Field
              id="pg-model"
              label="Model"
              hint={
                mode === 'chat'
                  ? 'Chat models, and the builtin engine.'
                  : `Models with the ${mode === 'transform' ? action : 'generate'} capability.`
              }
              error={errors['pg-model']}
            >
              <select
                id="pg-model"
                value={modelId}
                onChange={(e) => setModel(e.currentTarget.value)}
              >
                {usable.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.id} ({m.provider})
                  </option>
                ))}
              </select>
            </Field>
            {models.loading && !models.data && <Loading label="Loading models…" />}
            {mode === 'generate' && (
              <>
                <Field id="pg-prompt" label="Prompt" error={errors['pg-prompt']}>
                  <textarea
                    id="pg-prompt"
                    rows={5}
                    value={prompt}
                    required
                    onInput={(e) => setPrompt(e.currentTarget.value)}
                  />
                </Field>
                <Field id="pg-max" label="Max length (tokens)" error={errors['pg-max']}>
                  <input
                    id="pg-max"
                    type="number"
                    min={1}
                    max={modelInfo?.maxOutputTokens}
                    value={maxLength}
                    onInput={(e) => setMaxLength(e.currentTarget.value)}
                  />
                </Field>
              </>
            )}
            {mode === 'transform' && (
              <>
                <Field id="pg-action" label="Action">
                  <select
                    id="pg-action"
                    value={action}
                    onChange={(e) => {
                      setAction(e.currentTarget.value as Action);
                      form.reset();
                    }}
                  >
                    <option value="summarize">Summarize</option>
                    <option value="reformat">Reformat</option>
                    <option value="translate">Translate</option>
                  </select>
                </Field>
                {action === 'reformat' && (
                  <Field id="pg-format" label="Format" error={errors['pg-format']}>
                    <select
                      id="pg-format"
                      value={format}
                      onChange={(e) => setFormat(e.currentTarget.value)}
                    >
                      {FORMATS.map((f) => (
                        <option key={f} value={f}>
                          {f}
                        </option>
                      ))}
                    </select>
                  </Field>
                )}
                {action === 'translate' && (
                  <div class="form-row">
                    <Field
                      id="pg-source"
                      label="Source language"
                      hint={
                        languages.sources.length
                          ? `${modelId} translates from ${languages.sources.join(', ')}.`
                          : 'A code such as en; empty: the model detects it.'
                      }
                      error={errors['pg-source']}
                    >
                      <input
                        id="pg-source"
                        list="pg-sources"
                        autoComplete="off"
                        required={languages.sources.length > 0}
                        value={sourceLanguage}
                        onInput={(e) => setSourceLanguage(e.currentTarget.value)}
                      />
                      <datalist id="pg-sources">
                        {languages.sources.map((l) => (
                          <option key={l} value={l} />
                        ))}
                      </datalist>
                    </Field>
                    <Field
                      id="pg-language"
                      label="Target language"
                      hint={
                        languages.targets.length
                          ? `Into ${languages.targets.join(', ')} (or through one of them).`
                          : 'A code such as es or de.'
                      }
                      error={errors['pg-language']}
                    >
                      <input
                        id="pg-language"
                        list="pg-targets"
                        autoComplete="off"
                        required
                        value={targetLanguage}
                        onInput={(e) => setTargetLanguage(e.currentTarget.value)}
                      />
                      <datalist id="pg-targets">
                        {languages.targets.map((l) => (
                          <option key={l} value={l} />
                        ))}
                      </datalist>
                    </Field>
                  </div>
                )}
                <Field id="pg-text" label="Text" error={errors['pg-text']}>
                  <textarea
                    id="pg-text"
                    rows={6}
                    value={text}
                    required
                    onInput={(e) => setText(e.currentTarget.value)}
                  />
                </Field>
              </>
            )}
            {mode === 'chat' && (
              <>
                <ChatLog messages={chat} speaker="Assistant" />
                <Field id="pg-message" label="Message" error={errors['pg-message']}>
                  <textarea
                    id="pg-message"
                    rows={3}
                    value={draft}
                    onInput={(e) => setDraft(e.currentTarget.value)}
                  />
                </Field>
              </>
            )}
            {mode !== 'transform' && <StreamToggle checked={stream} onChange={setStream} />}
            <div class="toolbar-actions">
              <Button variant="primary" type="submit" busy={busy} disabled={!modelId}>
                {mode === 'chat' ? 'Send' : 'Run'}
              </Button>
              {streaming && <Button onClick={() => abort.current?.abort()}>Stop</Button>}
              {mode === 'chat' && chat.length > 0 && (
                <Button
                  variant="ghost"
                  onClick={() => {
                    setChat([]);
                    setLastChatCall(undefined);
                    setSessionId(newSessionId());
                  }}
                >
                  New conversation
                </Button>
              )}
            </div>
            <FormNotice form={form} title="The call failed" />
          </form>
        </Card>
        <Card title="Answer" subtitle={streaming ? 'Streaming…' : undefined}>
          <div class="answer" data-testid="answer" aria-live="polite" aria-busy={streaming}>
            {output ? (
              <Linked text={output} />
            ) : (
              <p class="muted small">
                {mode === 'chat' ? 'Replies appear in the conversation.' : 'Run a request.'}
              </p>
            )}
          </div>
          {usage && (
            <dl class="usage-line" data-testid="call-usage">
              <div>
                <dt>Model</dt>
                <dd>{usage.model}</dd>
              </div>
              {usage.tokensInput === undefined ? (
                <div>
                  <dt>Tokens</dt>
                  <dd>{formatInteger(usage.tokensOutput)}</dd>
                </div>
              ) : (
                <>
                  <div>
                    <dt>Tokens in</dt>
                    <dd>{formatInteger(usage.tokensInput)}</dd>
                  </div>
                  <div>
                    <dt>Tokens out</dt>
                    <dd>{formatInteger(usage.tokensOutput)}</dd>
                  </div>
                </>
              )}
              {usage.cost !== undefined && (
                <div>
                  <dt>Cost</dt>
                  <dd>{formatCost(usage.cost)}</dd>
                </div>
              )}
              <div>
                <dt>Request</dt>
                <dd>
                  <code>{usage.requestId}</code>
                </dd>
              </div>
            </dl>
          )}
        </Card>
      </div>
      <Card
        title="The same call in code"
        actions={<CopyButton text={curlOf(call)} label="Copy curl" />}
      >
        <pre class="code-block" tabIndex={0} aria-label="curl">
          {curlOf(call)}
        </pre>
        <div class="card-header">
          <p class="card-subtitle">
            With the OpenAI SDK (the gateway's OpenAI-compatible <code>/v1</code> routes):
          </p>
          <CopyButton text={openAiSnippetOf(modelId, sdkMessages, sdkStream)} label="Copy code" />
        </div>
        {modelInfo && !modelInfo.capabilities.includes('chat') && (
          <p class="muted small">
            {modelInfo.id} has no chat capability: <code>/v1/chat/completions</code> refuses it
            (400); use this code with a model that lists chat in <code>GET /v1/models</code>.
          </p>
        )}
        <pre class="code-block" tabIndex={0} aria-label="OpenAI SDK">
          {openAiSnippetOf(modelId, sdkMessages, sdkStream)}
        </pre>
      </Card>
    </>
  );
}

interface GenerateAnswer {
  content: string;
  request_id: string;
  usage: { model: string; tokens_input: number; tokens_output: number; cost: number };
}

interface TransformAnswer {
  transformed_text?: string;
  translated_text?: string;
  request_id: string;
  usage: { model: string; tokens_input: number; tokens_output: number };
}

interface AssistantAnswer {
  reply: string;
  model: string;
  request_id: string;
  usage: { tokens_used: number };
}

function usageOfGenerate(done: GenerateAnswer, requestId: string): CallUsage {
  return {
    model: done.usage.model,
    tokensInput: done.usage.tokens_input,
    tokensOutput: done.usage.tokens_output,
    cost: done.usage.cost,
    requestId: done.request_id || requestId,
  };
}

function newSessionId(): string {
  return `console-${crypto.randomUUID()}`;
}

import { useEffect, useRef, useState } from 'preact/hooks';
import { answerOf, api, get, send, type ModelInfo } from '../api';
import { NAME, profileProperties as LIMITS } from '../../../src/schemas/agents';
import { PATTERN_WORDS } from '../../../src/schemas/common';
import evaluation from '../assistant-evaluation.json';
import {
  Badge,
  Button,
  Card,
  ChatLog,
  StreamToggle,
  ConfirmDialog,
  EmptyState,
  ErrorNotice,
  Field,
  FieldSet,
  FormNotice,
  Loading,
  PageHeader,
  patternRule,
  useAction,
  useForm,
  useLoad,
  useToast,
  type ChatMessage,
} from '../ui';

interface AgentSummary {
  name: string;
  description: string;
  usesSteps: boolean;
  /** The collection kinds its behaviour searches. */
  searchedKinds: string[];
  custom: boolean;
}

interface CollectionRef {
  name: string;
  kind: string;
}

interface AgentStep {
  title: string;
  goal: string;
  confirm: string;
}

interface Escalation {
  message: string;
  contact: string;
  channel: string;
}

interface AgentProfile {
  name: string;
  description: string;
  instructions: string;
  model: string;
  collections: string[];
  tools: string[];
  greeting: string;
  steps: AgentStep[];
  base: string;
  escalation: Escalation;
  servingModel: { model: string; honoured: string[]; ignored: string[]; note: string };
  builtin: boolean;
}

type Draft = Omit<AgentProfile, 'servingModel' | 'builtin'>;

const BASES: readonly string[] = LIMITS.base.enum;
const TOOLS: Array<{ name: string; label: string }> = [
  { name: 'search_knowledge', label: 'Search the knowledge collections' },
  { name: 'get_item', label: 'Read one document in full' },
  { name: 'recommend', label: 'Recommend catalog items' },
];
const ESCALATION_LABELS = { message: 'What it says', contact: 'Contact', channel: 'Channel' };
const STEP_LIMITS = LIMITS.steps.items.properties;

const EMPTY: Draft = {
  name: '',
  description: '',
  instructions: '',
  model: '',
  collections: [],
  tools: [],
  greeting: '',
  steps: [],
  base: 'chat',
  escalation: { message: '', contact: '', channel: '' },
};

/** The body of PUT /api/v2/agents/{name}: the draft without its name (the path names it). */
function bodyOf(draft: Draft) {
  const { name: _name, ...body } = draft;
  return { ...body, model: body.model.trim() };
}

/** The form field showing an API detail: `/model`, `/steps/0/title`; an item of a list at its list. */
function fieldOf(pointer: string): string | undefined {
  const step = /^\/steps\/(\d+)\/(title|goal|confirm)$/.exec(pointer);
  if (step) return step[2] === 'confirm' ? 'agent-steps' : `step-${step[1]}-${step[2]}`;
  const top = pointer.replace(/^\/(collections|tools|steps)\/\d+$/, '/$1');
  const escalation = /^\/escalation\/(message|contact|channel)$/.exec(top);
  if (escalation) return `agent-escalation-${escalation[1]}`;
  return FORM_FIELDS.includes(top) ? `agent-${top.slice(1)}` : undefined;
}

/** The form's fields, by the pointer the API names them with (the field's id is agent-<name>). */
const FORM_FIELDS = [
  '/name',
  '/base',
  '/description',
  '/instructions',
  '/greeting',
  '/model',
  '/collections',
  '/tools',
  '/steps',
];

const NAME_RULE = patternRule(NAME.pattern, `Use ${NAME[PATTERN_WORDS]}.`);

/** What the behaviour does with the ticked collections it does not search, in words. */
function unsearchedNote(
  base: string,
  kinds: string[] | undefined,
  ticked: CollectionRef[],
): string {
  if (!kinds) return '';
  const skipped = ticked.filter((c) => !kinds.includes(c.kind));
  if (skipped.length === 0) return '';
  const names = skipped.map((c) => `${c.name} (${c.kind})`).join(', ');
  if (kinds.length === 0)
    return `${base} searches no collection: it guides through its steps, so ${names} is not read.`;
  return `${base} answers from ${kinds.join(' and ')} collections only: ${names} is not searched. Build the agent on chat to use ${skipped.length === 1 ? 'it' : 'them'}.`;
}

interface ModelFigures {
  development?: { score: number; turns: string };
  heldOut?: { score: number; turns: string };
  overruled?: string;
  short: boolean;
  measuredAt: string;
}

const EVALUATED: Record<string, ModelFigures> = evaluation.models;
function percent(score: number): string {
  return `${(100 * score).toFixed(1)}%`;
}

/** A model's last evaluation figures (npm run eval:assistants -- --record), beside the model choice. */
function ModelEvaluation(props: { model: string }) {
  const model = props.model.trim() || 'builtin';
  const figures = EVALUATED[model];
  if (!figures)
    return (
      <span>
        {model}: not evaluated yet (<code>npm run eval:assistants -- --model {model}</code>)
      </span>
    );
  const parts = [
    figures.heldOut &&
      `held-out ${percent(figures.heldOut.score)} (${figures.heldOut.turns} turns)`,
    figures.development && `development ${percent(figures.development.score)}`,
    figures.overruled && `replies overruled by the grounding check ${figures.overruled}`,
  ].filter(Boolean);
  return (
    <span>
      {model}: {parts.join(' · ')}
      {figures.short ? ' (short form)' : ''}, measured {figures.measuredAt}
    </span>
  );
}

function ProfileForm(props: {
  initial: Draft;
  isNew: boolean;
  stored: boolean;
  collections: CollectionRef[];
  /** The collection kinds each behaviour (chat, support, onboarding) searches. */
  searchedKinds: Record<string, string[]>;
  chatModels: string[];
  onSaved: (profile: AgentProfile) => void;
  onDelete: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(props.initial);
  const form = useForm(
    async () => {
      const saved = await api<AgentProfile>(
        'PUT',
        `/api/v2/agents/${encodeURIComponent(draft.name.trim())}`,
        { body: bodyOf(draft) },
      );
      props.onSaved(saved);
    },
    { fieldOf, rules: { 'agent-name': NAME_RULE } },
  );
  const errors = form.errors;
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  const toggle = (list: string[], item: string, on: boolean) =>
    on ? [...list, item] : list.filter((x) => x !== item);
  const known = new Map(props.collections.map((c) => [c.name, c]));
  const collections = [
    ...props.collections,
    ...draft.collections.filter((name) => !known.has(name)).map((name) => ({ name, kind: '' })),
  ];
  const ticked = collections.filter((c) => c.kind && draft.collections.includes(c.name));
  const note = unsearchedNote(draft.base, props.searchedKinds[draft.base], ticked);

  return (
    <form onSubmit={form.onSubmit} noValidate>
      {props.isNew && (
        <Field
          id="agent-name"
          label="Name"
          hint="Lowercase letters, digits, - and _; the agent answers at /api/v2/ai/assistants/{name}."
          error={errors['agent-name']}
        >
          <input
            id="agent-name"
            required
            maxLength={63}
            value={draft.name}
            onInput={(e) => set({ name: e.currentTarget.value })}
          />
        </Field>
      )}
      <div class="form-row">
        <Field
          id="agent-base"
          label="Behaviour"
          hint="Whose behaviour it builds on"
          error={errors['agent-base']}
        >
          <select
            id="agent-base"
            value={draft.base}
            onChange={(e) => set({ base: e.currentTarget.value })}
          >
            {BASES.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="agent-model"
          label="Model"
          hint={
            <>
              Empty: the service's default model (builtin unless the operator sets ASSISTANT_MODEL).
              Evaluation: <ModelEvaluation model={draft.model} />
            </>
          }
          error={errors['agent-model']}
        >
          <input
            id="agent-model"
            list="agent-models"
            maxLength={LIMITS.model.maxLength}
            value={draft.model}
            onInput={(e) => set({ model: e.currentTarget.value })}
          />
          <datalist id="agent-models">
            {props.chatModels.map((m) => {
              const heldOut = EVALUATED[m]?.heldOut;
              return (
                <option
                  key={m}
                  value={m}
                  label={heldOut ? `${m} (held-out ${percent(heldOut.score)})` : m}
                />
              );
            })}
          </datalist>
        </Field>
      </div>
      <Field id="agent-description" label="Description" error={errors['agent-description']}>
        <input
          id="agent-description"
          maxLength={LIMITS.description.maxLength}
          value={draft.description}
          onInput={(e) => set({ description: e.currentTarget.value })}
        />
      </Field>
      <Field
        id="agent-instructions"
        label="Instructions"
        hint="How it should answer: the lead of its system prompt (models that follow instructions)."
        error={errors['agent-instructions']}
      >
        <textarea
          id="agent-instructions"
          rows={4}
          maxLength={LIMITS.instructions.maxLength}
          value={draft.instructions}
          onInput={(e) => set({ instructions: e.currentTarget.value })}
        />
      </Field>
      <Field id="agent-greeting" label="Greeting" error={errors['agent-greeting']}>
        <input
          id="agent-greeting"
          maxLength={LIMITS.greeting.maxLength}
          value={draft.greeting}
          onInput={(e) => set({ greeting: e.currentTarget.value })}
        />
      </Field>
      <FieldSet
        id="agent-collections"
        legend="Knowledge collections (none checked: all of them)"
        error={errors['agent-collections']}
        hint={note ? <span data-testid="collections-note">{note}</span> : undefined}
      >
        {collections.length === 0 && <p class="muted small">No collections yet.</p>}
        {collections.map((c) => (
          <label key={c.name} class="checkbox">
            <input
              type="checkbox"
              checked={draft.collections.includes(c.name)}
              onChange={(e) =>
                set({ collections: toggle(draft.collections, c.name, e.currentTarget.checked) })
              }
            />
            {c.name}
            {c.kind && <span class="muted small">{c.kind}</span>}
          </label>
        ))}
      </FieldSet>
      <FieldSet
        id="agent-tools"
        legend="Tools (models with tool calls)"
        error={errors['agent-tools']}
      >
        {TOOLS.map((t) => (
          <label key={t.name} class="checkbox">
            <input
              type="checkbox"
              checked={draft.tools.includes(t.name)}
              onChange={(e) => set({ tools: toggle(draft.tools, t.name, e.currentTarget.checked) })}
            />
            {t.label}
          </label>
        ))}
      </FieldSet>
      {(draft.base === 'onboarding' || draft.steps.length > 0) && (
        <FieldSet
          id="agent-steps"
          class="steps"
          legend="Steps (onboarding)"
          error={errors['agent-steps']}
        >
          {draft.steps.map((step, i) => {
            const edit = (change: Partial<AgentStep>) =>
              set({ steps: draft.steps.map((s, j) => (j === i ? { ...s, ...change } : s)) });
            return (
              <div class="step" key={i}>
                <Field
                  id={`step-${i}-title`}
                  label={`Step ${i + 1}`}
                  error={errors[`step-${i}-title`]}
                >
                  <input
                    id={`step-${i}-title`}
                    required
                    maxLength={STEP_LIMITS.title.maxLength}
                    value={step.title}
                    onInput={(e) => edit({ title: e.currentTarget.value })}
                  />
                </Field>
                <Field id={`step-${i}-goal`} label="Goal" error={errors[`step-${i}-goal`]}>
                  <input
                    id={`step-${i}-goal`}
                    maxLength={STEP_LIMITS.goal.maxLength}
                    value={step.goal}
                    onInput={(e) => edit({ goal: e.currentTarget.value })}
                  />
                </Field>
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => set({ steps: draft.steps.filter((_, j) => j !== i) })}
                >
                  Remove step {i + 1}
                </Button>
              </div>
            );
          })}
          {draft.steps.length < LIMITS.steps.maxItems && (
            <Button
              size="sm"
              onClick={() => set({ steps: [...draft.steps, { title: '', goal: '', confirm: '' }] })}
            >
              Add a step
            </Button>
          )}
        </FieldSet>
      )}
      {draft.base === 'support' && (
        <fieldset class="steps">
          <legend>Hand-off to a person</legend>
          <div class="form-row escalation">
            {(['message', 'contact', 'channel'] as const).map((part) => (
              <Field
                key={part}
                id={`agent-escalation-${part}`}
                label={ESCALATION_LABELS[part]}
                error={errors[`agent-escalation-${part}`]}
              >
                <input
                  id={`agent-escalation-${part}`}
                  maxLength={LIMITS.escalation.properties[part].maxLength}
                  value={draft.escalation[part]}
                  onInput={(e) =>
                    set({ escalation: { ...draft.escalation, [part]: e.currentTarget.value } })
                  }
                />
              </Field>
            ))}
          </div>
        </fieldset>
      )}
      <FormNotice form={form} title="The profile was not saved" />
      <div class="toolbar-actions">
        <Button variant="primary" type="submit" busy={form.busy}>
          Save agent
        </Button>
        {props.stored && (
          <Button variant="danger" onClick={props.onDelete}>
            {props.initial.base === props.initial.name ? 'Restore the built-in' : 'Delete agent'}
          </Button>
        )}
      </div>
    </form>
  );
}

function newSessionId(): string {
  return `console-${crypto.randomUUID()}`;
}

function AgentChat(props: { agent: string }) {
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [live, setLive] = useState('');
  const [draft, setDraft] = useState('');
  const [stream, setStream] = useState(true);
  const [meta, setMeta] = useState<{ model: string; tokens: number; requestId: string }>();
  const sessionId = useRef(newSessionId());
  const sending = useAction();
  useEffect(() => {
    setMessages([]);
    setMeta(undefined);
    sessionId.current = newSessionId();
  }, [props.agent]);

  return (
    <Card
      title={`Try ${props.agent}`}
      subtitle="A real conversation with the agent as saved: it answers from the organization's knowledge, citing documents as links, and counts towards the usage."
      id="agent-chat"
    >
      <ChatLog messages={messages} speaker={props.agent} live={live} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const text = draft.trim();
          if (!text) return;
          void sending.act(async () => {
            const sent: ChatMessage[] = [...messages, { role: 'user', content: text }];
            setMessages(sent);
            setDraft('');
            const response = await send(
              'POST',
              `/api/v2/ai/assistants/${encodeURIComponent(props.agent)}`,
              {
                body: {
                  user_id: 'console',
                  session_id: sessionId.current,
                  messages: [{ role: 'user', content: text }],
                  ...(stream ? { stream: true } : {}),
                },
              },
            );
            try {
              const done = await answerOf<{
                reply: string;
                model: string;
                request_id: string;
                usage: { tokens_used: number };
              }>(response, stream, (delta) => setLive((l) => l + delta));
              setMessages([...sent, { role: 'assistant', content: done.reply }]);
              setMeta({
                model: done.model,
                tokens: done.usage.tokens_used,
                requestId: done.request_id || (response.headers.get('x-request-id') ?? ''),
              });
            } finally {
              setLive('');
            }
          });
        }}
      >
        <Field id="agent-message" label="Your message">
          <textarea
            id="agent-message"
            rows={2}
            value={draft}
            required
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </Field>
        <StreamToggle checked={stream} onChange={setStream} />
        <div class="toolbar-actions">
          <Button variant="primary" type="submit" busy={sending.busy}>
            Send
          </Button>
          {messages.length > 0 && (
            <Button
              variant="ghost"
              onClick={() => {
                setMessages([]);
                setMeta(undefined);
                sessionId.current = newSessionId();
              }}
            >
              New conversation
            </Button>
          )}
        </div>
      </form>
      <ErrorNotice error={sending.error} />
      {meta && (
        <p class="muted small" data-testid="agent-usage">
          {meta.model} · {meta.tokens} tokens · request {meta.requestId}
        </p>
      )}
    </Card>
  );
}

export function AgentsPage() {
  const agents = useLoad(() => get<{ agents: AgentSummary[] }>('/api/v2/agents'));
  const collections = useLoad(() =>
    get<{ collections: CollectionRef[] }>('/api/v2/knowledge/collections'),
  );
  const models = useLoad(() => get<{ models: ModelInfo[] }>('/api/v2/models'));
  const [selected, setSelected] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [toastView, toast] = useToast();
  const list = agents.data?.agents ?? [];
  const current = creating ? undefined : (selected ?? list[0]?.name);
  const profile = useLoad(
    () =>
      current
        ? get<AgentProfile>(`/api/v2/agents/${encodeURIComponent(current)}`)
        : Promise.resolve(undefined),
    [current],
  );
  const [deleting, setDeleting] = useState<string>();
  const chatModels = (models.data?.models ?? [])
    .filter((m) => m.capabilities.includes('chat') || m.capabilities.includes('generate'))
    .map((m) => m.id);
  const loaded = profile.data;
  const initial: Draft | undefined = creating
    ? EMPTY
    : loaded && loaded.name === current
      ? {
          name: loaded.name,
          description: loaded.description,
          instructions: loaded.instructions,
          model: loaded.model,
          collections: loaded.collections,
          tools: loaded.tools,
          greeting: loaded.greeting,
          steps: loaded.steps,
          base: loaded.base,
          escalation: loaded.escalation,
        }
      : undefined;

  return (
    <>
      <PageHeader
        title="Agents"
        description="The organization's assistants: the built-in chat, support and onboarding agents (or its own versions of them) and agents of its own, each answering at /api/v2/ai/assistants/{name}."
        actions={
          <Button
            variant="primary"
            onClick={() => {
              setCreating(true);
              setSelected(undefined);
            }}
          >
            New agent
          </Button>
        }
      />
      <ErrorNotice error={agents.error} />
      <Card title="Agents">
        {!agents.data ? (
          agents.loading && <Loading />
        ) : list.length === 0 ? (
          <EmptyState title="No agents" />
        ) : (
          <ul class="agent-list" data-testid="agent-list">
            {list.map((a) => (
              <li key={a.name}>
                <button
                  type="button"
                  class="agent-pick"
                  aria-pressed={a.name === current}
                  onClick={() => {
                    setCreating(false);
                    setSelected(a.name);
                  }}
                >
                  <span class="agent-pick-name">{a.name}</span>
                  <span class="agent-pick-badges">
                    {a.custom ? (
                      <Badge tone="blue">{BASES.includes(a.name) ? 'customized' : 'own'}</Badge>
                    ) : (
                      <Badge tone="gray">built-in</Badge>
                    )}
                    {a.usesSteps && <Badge tone="amber">steps</Badge>}
                  </span>
                  <span class="agent-pick-description">{a.description}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <div class="grid-2 agents-work">
        <Card
          title={creating ? 'New agent' : `Profile: ${current ?? ''}`}
          subtitle={
            loaded && !creating && loaded.servingModel.note ? loaded.servingModel.note : undefined
          }
        >
          <ErrorNotice error={profile.error} />
          {initial ? (
            <ProfileForm
              key={creating ? '(new)' : `${initial.name}`}
              initial={initial}
              isNew={creating}
              stored={!creating && !!loaded && !loaded.builtin}
              collections={collections.data?.collections ?? []}
              searchedKinds={Object.fromEntries(list.map((a) => [a.name, a.searchedKinds]))}
              chatModels={chatModels}
              onSaved={(saved) => {
                toast(`Saved ${saved.name}`);
                setCreating(false);
                setSelected(saved.name);
                agents.reload();
                profile.reload();
              }}
              onDelete={() => setDeleting(current)}
            />
          ) : (
            profile.loading && <Loading />
          )}
        </Card>
        {current && !creating ? (
          <AgentChat agent={current} />
        ) : (
          <Card title="Try it">
            <EmptyState title="Save the agent to try it" />
          </Card>
        )}
      </div>
      <ConfirmDialog
        title={
          BASES.includes(deleting ?? '')
            ? `Restore the built-in ${deleting}?`
            : `Delete ${deleting}?`
        }
        subject={deleting}
        confirmLabel={BASES.includes(deleting ?? '') ? 'Restore' : 'Delete agent'}
        onClose={() => setDeleting(undefined)}
        onConfirm={async (name) => {
          await api('DELETE', `/api/v2/agents/${encodeURIComponent(name)}`);
          toast(BASES.includes(name) ? `Restored the built-in ${name}` : `Deleted ${name}`);
          setSelected(undefined);
          agents.reload();
          profile.reload();
        }}
      >
        <p>
          {BASES.includes(deleting ?? '')
            ? `The organization's version of ${deleting} is removed: the built-in agent answers again.`
            : `${deleting} stops answering at /api/v2/ai/assistants/${deleting} at once. Its conversations stay readable.`}
        </p>
      </ConfirmDialog>
      {toastView}
    </>
  );
}

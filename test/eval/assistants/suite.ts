import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { silentLogger } from '@switchyard/shared/testing';
import { callApi } from '../../support/http';
import { WebhookReceiver } from '../../support/receiver';
import { ok, type EvalConversation, type EvalSet, type EvalTurn } from './eval-set';

export const CHECK_KINDS = [
  'status',
  'facts',
  'forbidden',
  'leak',
  'escalation',
  'handover',
  'next_step',
] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

export interface CheckResult {
  conversation: string;
  turn: number;
  agent: string;
  kind: CheckKind;
  passed: boolean;
  detail?: string;
  /** The reply a failed check was made on (for --failures). */
  reply?: string;
}

export interface SuiteOptions {
  set: EvalSet;
  /** The models every turn names, one after the other ('builtin', or registry models' ids). */
  models: string[];
  /** Only the conversations marked short. */
  short: boolean;
  /** Extra environment for the mesh (a model registry: MODEL_REGISTRY_JSON / MODEL_REGISTRY_PATH). */
  env?: NodeJS.ProcessEnv;
}

/** One model's run over one set. */
export interface SuiteResult {
  set: EvalSet['name'];
  model: string;
  conversations: number;
  turns: number;
  checks: CheckResult[];
  /** Replies that contained the vendor's demo data or contacts. */
  vendorLeaks: number;
  /** Greetings and small talk that were handed to a person. */
  escalatedGreetings: number;
  /** Replies a model wrote (checked by the grounding check), and those it overruled. */
  modelWritten: number;
  overruled: number;
  /** What the overruled replies stated without ground, by kind. */
  issues: Record<string, number>;
  seconds: number;
}

interface Reply {
  reply?: string;
  next_step?: number | null;
}

function includes(text: string, needle: string): boolean {
  return text.toLowerCase().includes(needle.toLowerCase());
}

/** The checks of one turn's answer (escalations are checked after the conversation, from the webhooks). */
function checkTurn(
  set: EvalSet,
  turn: EvalTurn,
  status: number,
  body: Reply,
  org: string,
): Array<[CheckKind, boolean, string?]> {
  const reply = body.reply ?? '';
  const results: Array<[CheckKind, boolean, string?]> = [
    ['status', status === 200, status === 200 ? undefined : `status ${status}`],
  ];
  if (status !== 200) return results;
  for (const fact of turn.facts ?? []) {
    const wordings = Array.isArray(fact) ? fact : [fact];
    results.push([
      'facts',
      wordings.some((w) => includes(reply, w)),
      `missing ${wordings.map((w) => `"${w}"`).join(' or ')}`,
    ]);
  }
  for (const bad of turn.forbidden ?? [])
    results.push(['forbidden', !includes(reply, bad), `contains "${bad}"`]);
  const foreign = [
    ...set.vendorStrings,
    ...Object.entries(set.organizations)
      .filter(([name]) => name !== org)
      .flatMap(([, o]) => o.own),
  ].filter((s) => includes(reply, s));
  results.push([
    'leak',
    foreign.length === 0,
    `contains ${foreign.map((f) => `"${f}"`).join(', ')}`,
  ]);
  if (turn.nextStep !== undefined)
    results.push([
      'next_step',
      body.next_step === turn.nextStep,
      `next_step ${String(body.next_step)}, expected ${String(turn.nextStep)}`,
    ]);
  return results;
}

const GREETING =
  /^(hi|hello|hey|hola|hallo|moin|servus|salut|good (morning|evening)|guten (morgen|tag|abend)|buenos|buenas|bonjour|bonsoir|thanks|thank you|danke|gracias|merci)/i;

/** Creates the set's organizations through the admin API and loads their data as customers would. */
async function setUp(
  mesh: EmbeddedMesh,
  set: EvalSet,
  receiver: WebhookReceiver,
): Promise<Record<string, string>> {
  const admin = { authorization: `Bearer ${mesh.adminToken}`, key: null };
  const keys: Record<string, string> = {};
  for (const [name, org] of Object.entries(set.organizations)) {
    await ok(
      `create ${org.id}`,
      callApi(mesh.gatewayUrl, '', '/api/v2/admin/organizations', {
        ...admin,
        body: {
          id: org.id,
          name: org.name,
          monthlyTokenQuota: 100_000_000,
          timeZone: org.timeZone,
        },
      }),
    );
    const key = await ok(
      `key ${org.id}`,
      callApi(mesh.gatewayUrl, '', `/api/v2/admin/organizations/${org.id}/keys`, {
        ...admin,
        body: { name: 'eval' },
      }),
    );
    const api = (path: string, options = {}) =>
      callApi(mesh.gatewayUrl, key.body.key as string, path, options);
    keys[name] = key.body.key as string;
    await ok(
      `webhook ${org.id}`,
      api('/api/webhooks', { body: { event: 'support_escalated', url: receiver.url } }),
    );
    await org.load(api);
  }
  return keys;
}

/** The grounding check's account of the turn's reply, from the stored session. */
async function groundingOf(
  mesh: EmbeddedMesh,
  key: string,
  sessionId: string,
): Promise<{ overruled: boolean; issues: Array<{ kind: string }> } | undefined> {
  const res = await callApi(mesh.gatewayUrl, key, `/api/v2/assistants/sessions/${sessionId}`);
  const messages = (res.body?.messages ?? []) as Array<{
    grounding?: { overruled: boolean; issues: Array<{ kind: string }> };
  }>;
  return messages.at(-1)?.grounding;
}

/** Runs the set on a fresh embedded mesh at the set's date, for each model in turn. */
export async function runSuite(options: SuiteOptions): Promise<SuiteResult[]> {
  const { set } = options;
  const mesh = await startEmbeddedMesh(
    {
      ...process.env,
      ...options.env,
      GATEWAY_PORT: '0',
      DEMO_DATA: 'false',
      LOG_LEVEL: 'silent',
      DEFAULT_RPM: '1000000',
      DEFAULT_TPM: '1000000000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      KAFKA_BROKERS: '',
      MONGODB_URI: '',
      REDIS_URL: '',
    },
    silentLogger(),
    { now: () => set.now },
  );
  const receiver = await new WebhookReceiver().start();
  try {
    const keys = await setUp(mesh, set, receiver);
    const conversations = set.conversations.filter((c) => !options.short || c.short);
    const results: SuiteResult[] = [];
    for (const model of options.models)
      results.push(await runModel(mesh, receiver, keys, set, conversations, model));
    return results;
  } finally {
    await receiver.stop();
    await mesh.stop();
  }
}

async function runModel(
  mesh: EmbeddedMesh,
  receiver: WebhookReceiver,
  keys: Record<string, string>,
  set: EvalSet,
  conversations: EvalConversation[],
  model: string,
): Promise<SuiteResult> {
  const started = Date.now();
  const result: SuiteResult = {
    set: set.name,
    model,
    conversations: conversations.length,
    turns: 0,
    checks: [],
    vendorLeaks: 0,
    escalatedGreetings: 0,
    modelWritten: 0,
    overruled: 0,
    issues: {},
    seconds: 0,
  };
  for (const conversation of conversations) {
    const key = keys[conversation.org];
    if (!key) throw new Error(`${conversation.id}: no organization '${conversation.org}'`);
    const record = (
      turn: number,
      kind: CheckKind,
      passed: boolean,
      detail?: string,
      reply?: string,
    ) =>
      result.checks.push({
        conversation: conversation.id,
        turn,
        agent: conversation.agent,
        kind,
        passed,
        ...(passed ? {} : { detail, reply }),
      });
    const sessionId = `${set.name}-${conversation.id}-${model}`;
    const messages: Array<{ role: string; content: string }> = [];
    const replies: string[] = [];
    for (const [i, turn] of conversation.turns.entries()) {
      result.turns++;
      messages.push({ role: 'user', content: turn.user });
      const res = await callApi(
        mesh.gatewayUrl,
        key,
        `/api/v2/ai/assistants/${conversation.agent}`,
        {
          timeoutMs: 300_000,
          body: {
            user_id: 'eval-user',
            session_id: sessionId,
            messages,
            ...(turn.step !== undefined ? { step: turn.step } : {}),
            // Named even for builtin, so nothing in the environment changes what is measured.
            model,
          },
        },
      );
      const reply = res.status === 200 ? String(res.body?.reply ?? '') : '';
      replies.push(reply);
      // A turn that failed (a timeout) has no reply to carry on: the next turn follows the question.
      if (reply) messages.push({ role: 'assistant', content: reply });
      if (reply && model !== 'builtin') {
        const grounding = await groundingOf(mesh, key, sessionId);
        if (grounding) {
          result.modelWritten++;
          if (grounding.overruled) result.overruled++;
          for (const issue of grounding.overruled ? grounding.issues : [])
            result.issues[issue.kind] = (result.issues[issue.kind] ?? 0) + 1;
        }
      }
      for (const [kind, passed, detail] of checkTurn(
        set,
        turn,
        res.status,
        res.body ?? {},
        conversation.org,
      )) {
        record(i + 1, kind, passed, detail, reply || res.text);
        if (kind === 'leak' && !passed && set.vendorStrings.some((v) => includes(reply, v)))
          result.vendorLeaks++;
      }
    }
    await checkEscalations(
      set,
      conversation,
      sessionId,
      receiver,
      replies,
      record,
      () => result.escalatedGreetings++,
    );
  }
  result.seconds = (Date.now() - started) / 1000;
  return result;
}

/**
 * Which turns handed the conversation over (each support_escalated names the user's message that
 * caused it last), and whether each hand-over's reply carried the organization's hand-over text and contacts.
 */
async function checkEscalations(
  set: EvalSet,
  conversation: EvalConversation,
  sessionId: string,
  receiver: WebhookReceiver,
  replies: string[],
  record: (turn: number, kind: CheckKind, passed: boolean, detail?: string, reply?: string) => void,
  greetingEscalated: () => void,
): Promise<void> {
  const forSession = () =>
    receiver.calls.filter((c) => (c.body as { sessionId?: string })?.sessionId === sessionId);
  const expected = conversation.turns.some((t) => t.escalate !== undefined);
  // Deliveries are asynchronous: wait until no new one arrives for a moment.
  let seen = -1;
  for (let waited = 0; waited < 3000 && forSession().length !== seen; waited += 300) {
    seen = forSession().length;
    if (!expected && seen === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const escalatedAt = new Set(
    forSession().map((c) => {
      const summary = String((c.body as { summary?: string }).summary ?? '');
      const last = summary.split('\n').pop() ?? '';
      return conversation.turns.findIndex((t) => t.user === last);
    }),
  );
  const handOver = set.organizations[conversation.org]?.escalation;
  for (const at of escalatedAt) {
    if (at < 0 || !handOver) continue;
    const reply = replies[at] ?? '';
    const carried = includes(reply, handOver.message) && includes(reply, handOver.contact);
    record(at + 1, 'handover', carried, 'the hand-over text or its contacts are missing', reply);
  }
  conversation.turns.forEach((turn, i) => {
    const happened = escalatedAt.has(i);
    if (happened && GREETING.test(turn.user) && turn.user.split(/\s+/).length <= 4)
      greetingEscalated();
    if (turn.escalate === undefined) return;
    record(
      i + 1,
      'escalation',
      happened === turn.escalate,
      `escalated ${happened}, expected ${turn.escalate}`,
    );
  });
}

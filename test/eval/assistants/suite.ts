import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { silentLogger } from '@switchyard/shared/testing';
import { callApi } from '../../support/http';
import { WebhookReceiver } from '../../support/receiver';
import { allConversations, type Conversation, type TurnCheck } from './conversations';
import {
  EDUCATION_COURSES,
  ORGANIZATIONS,
  SHOP_ARTICLES,
  SHOP_ESCALATION,
  SUITE_NOW,
  TICKETING_EVENTS,
  VENDOR_STRINGS,
} from './organizations';

export const CHECK_KINDS = [
  'status',
  'facts',
  'forbidden',
  'leak',
  'escalation',
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
  /** The model every turn names ('builtin', or a registry model's id). */
  model: string;
  /** Only the conversations marked short (CI). */
  short: boolean;
  /** Extra environment for the mesh (a model registry: MODEL_REGISTRY_JSON / MODEL_REGISTRY_PATH). */
  env?: NodeJS.ProcessEnv;
}

export interface SuiteResult {
  conversations: number;
  turns: number;
  checks: CheckResult[];
  /** Replies that contained the vendor's demo data or contacts. */
  vendorLeaks: number;
  /** Greetings and small talk that were handed to a person. */
  escalatedGreetings: number;
}

type Org = keyof typeof ORGANIZATIONS;

async function ok(
  what: string,
  response: Promise<{ status: number; text: string }>,
): Promise<void> {
  const { status, text } = await response;
  if (status >= 300) throw new Error(`${what}: ${status} ${text}`);
}

/** Creates the three organizations through the admin API and imports their data as a customer would. */
async function setUp(mesh: EmbeddedMesh, receiver: WebhookReceiver): Promise<Record<Org, string>> {
  const admin = { authorization: `Bearer ${mesh.adminToken}`, key: null };
  const keys = {} as Record<Org, string>;
  for (const [name, org] of Object.entries(ORGANIZATIONS) as Array<
    [Org, (typeof ORGANIZATIONS)[Org]]
  >) {
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
    const key = await callApi(mesh.gatewayUrl, '', `/api/v2/admin/organizations/${org.id}/keys`, {
      ...admin,
      body: { name: 'eval' },
    });
    keys[name] = key.body.key as string;
    await ok(
      `webhook ${org.id}`,
      callApi(mesh.gatewayUrl, keys[name], '/api/webhooks', {
        body: { event: 'support_escalated', url: receiver.url },
      }),
    );
  }
  const as =
    (org: Org) =>
    (path: string, options = {}) =>
      callApi(mesh.gatewayUrl, keys[org], path, options);
  const importRows = async (org: Org, name: string, kind: string, rows: object[]) => {
    await ok(
      `collection ${name}`,
      as(org)('/api/v2/knowledge/collections', { body: { name, kind } }),
    );
    await ok(
      `import ${name}`,
      as(org)(`/api/v2/knowledge/collections/${name}/import`, {
        rawBody: rows.map((r) => JSON.stringify(r)).join('\n'),
        contentType: 'application/x-ndjson',
      }),
    );
  };
  await importRows('ticketing', 'events', 'events', TICKETING_EVENTS);
  await importRows('education', 'courses', 'courses', EDUCATION_COURSES);
  await importRows('shop', 'help', 'articles', SHOP_ARTICLES);
  await ok(
    'support profile',
    as('shop')('/api/v2/agents/support', { method: 'PUT', body: { escalation: SHOP_ESCALATION } }),
  );
  await ok(
    'enrolment agent',
    as('education')('/api/v2/agents/enrolment', {
      method: 'PUT',
      body: {
        base: 'onboarding',
        steps: [
          {
            title: 'Choose a course',
            goal: 'Pick the course the learner wants to join.',
            confirm: 'you know which course',
          },
          {
            title: 'Learner details',
            goal: 'Name and email of the learner.',
            confirm: 'the details are complete',
          },
          { title: 'Payment', goal: 'Card or invoice.', confirm: 'payment is arranged' },
        ],
      },
    }),
  );
  return keys;
}

function includes(text: string, needle: string): boolean {
  return text.toLowerCase().includes(needle.toLowerCase());
}

/** The checks of one turn's answer (escalation is checked after the conversation, from the webhooks). */
function checkTurn(
  turn: TurnCheck,
  status: number,
  body: { reply?: string; next_step?: number | null },
  org: Org,
): Array<[CheckKind, boolean, string?]> {
  const reply = body.reply ?? '';
  const results: Array<[CheckKind, boolean, string?]> = [
    ['status', status === 200, status === 200 ? undefined : `status ${status}`],
  ];
  if (status !== 200) return results;
  for (const fact of turn.facts ?? [])
    results.push(['facts', includes(reply, fact), `missing "${fact}"`]);
  for (const bad of turn.forbidden ?? [])
    results.push(['forbidden', !includes(reply, bad), `contains "${bad}"`]);
  const foreign = [
    ...VENDOR_STRINGS,
    ...Object.entries(ORGANIZATIONS)
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

const GREETING = /^(hi|hello|hey|hola|good (morning|evening)|thanks|thank you|buenos|bonjour)/i;

/** Runs the suite on a fresh embedded mesh at the suite's date and returns every check. */
export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
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
    { now: () => SUITE_NOW },
  );
  const receiver = await new WebhookReceiver().start();
  const checks: CheckResult[] = [];
  let turns = 0;
  let vendorLeaks = 0;
  let escalatedGreetings = 0;
  try {
    const keys = await setUp(mesh, receiver);
    const conversations = allConversations().filter((c) => !options.short || c.short);
    for (const conversation of conversations) {
      const record = (
        turn: number,
        kind: CheckKind,
        passed: boolean,
        detail?: string,
        reply?: string,
      ) =>
        checks.push({
          conversation: conversation.id,
          turn,
          agent: conversation.agent,
          kind,
          passed,
          ...(passed ? {} : { detail, reply }),
        });
      const sessionId = `${conversation.id}-${options.model}`;
      const messages: Array<{ role: string; content: string }> = [];
      for (const [i, turn] of conversation.turns.entries()) {
        turns++;
        messages.push({ role: 'user', content: turn.user });
        const res = await callApi(
          mesh.gatewayUrl,
          keys[conversation.org],
          `/api/v2/ai/assistants/${conversation.agent}`,
          {
            body: {
              user_id: 'eval-user',
              session_id: sessionId,
              messages,
              ...(turn.step !== undefined ? { step: turn.step } : {}),
              // Named even for builtin, so a DEFAULT_MODEL or LOCAL_MODEL_PATH in the environment does not change what is measured.
              model: options.model,
            },
          },
        );
        // A turn that failed (a timeout) has no reply to carry on: the next turn follows the question.
        if (res.status === 200 && res.body?.reply)
          messages.push({ role: 'assistant', content: res.body.reply as string });
        for (const [kind, passed, detail] of checkTurn(
          turn,
          res.status,
          res.body ?? {},
          conversation.org,
        )) {
          record(i + 1, kind, passed, detail, res.body?.reply ?? res.text);
          if (
            kind === 'leak' &&
            !passed &&
            VENDOR_STRINGS.some((v) => includes(res.body?.reply ?? '', v))
          )
            vendorLeaks++;
        }
      }
      await checkEscalations(conversation, sessionId, receiver, record, () => escalatedGreetings++);
    }
    return { conversations: conversations.length, turns, checks, vendorLeaks, escalatedGreetings };
  } finally {
    await receiver.stop();
    await mesh.stop();
  }
}

/** Which turns handed the conversation over: each support_escalated names the user's message that caused it last. */
async function checkEscalations(
  conversation: Conversation,
  sessionId: string,
  receiver: WebhookReceiver,
  record: (turn: number, kind: CheckKind, passed: boolean, detail?: string) => void,
  greetingEscalated: () => void,
): Promise<void> {
  const expected = conversation.turns.some((t) => t.escalate !== undefined);
  if (!expected) return;
  const forSession = () =>
    receiver.calls.filter((c) => (c.body as { sessionId?: string })?.sessionId === sessionId);
  // Deliveries are asynchronous: wait until no new one arrives for a moment.
  let seen = -1;
  for (let waited = 0; waited < 3000 && forSession().length !== seen; waited += 300) {
    seen = forSession().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const escalatedAt = new Set(
    forSession().map((c) => {
      const summary = String((c.body as { summary?: string }).summary ?? '');
      const last = summary.split('\n').pop() ?? '';
      return conversation.turns.findIndex((t) => t.user === last);
    }),
  );
  conversation.turns.forEach((turn, i) => {
    if (turn.escalate === undefined) return;
    const happened = escalatedAt.has(i);
    record(
      i + 1,
      'escalation',
      happened === turn.escalate,
      `escalated ${happened}, expected ${turn.escalate}`,
    );
    if (happened && GREETING.test(turn.user) && turn.user.split(/\s+/).length <= 4)
      greetingEscalated();
  });
}

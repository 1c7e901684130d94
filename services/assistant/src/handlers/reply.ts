import {
  AppError,
  answeredOnce,
  countTokens,
  newId,
  onceKeyOf,
  type AnsweredOnceOptions,
  type CallContext,
  type CallControl,
} from '@switchyard/shared';
import type { ReplyChunk, ReplyRequest__Output } from '@switchyard/shared/proto/assistant/v1';
import { knowledgeAccess, type AgentDirectory, type ResolvedAgent } from '../agents/directory';
import type { SupportEscalationPublisher } from '../events/support-escalation-publisher';
import type { KnowledgeStore } from '../store/knowledge/port';
import { isBuiltinModel, wordDeltas } from '../responders/builtin';
import { completionMessages } from '../responders/prompt';
import {
  excerptSummary,
  summaryEnd,
  type Summarizer,
  type SummaryResult,
} from '../conversation/history-summary';
import { keepRetrievedLinks, retrievedUrls } from '../responders/citations';
import { groundedReply, type GroundingOutcome } from '../responders/grounded';
import type { KnowledgeRetriever } from '../retrieval/knowledge-retriever';
import type { AgentProfile, AgentProfileStore } from '../store/profiles/port';
import type { Agent, KnowledgeAccess, PreparedTurn } from '../agents/types';
import type { ResponderOutput } from '../responders/responder';
import type { Recommender } from '../clients';
import { createToolbox } from '../tools/toolbox';
import { ONBOARDING_STEPS } from '../agents/onboarding';
import {
  attributionOf,
  UsageRoutes,
  type StreamSink,
  type UsagePublisher,
} from '@switchyard/shared';
import type { DeltaSink, Responder } from '../responders/responder';
import { capHistory, mergeHistory } from '../conversation/history';
import type { SessionLock } from '../conversation/session-lock';
import { saveTurn } from '../conversation/save-turn';
import {
  emptyMemory,
  type ChatMessage,
  type HistorySummary,
  type Session,
  type SessionStore,
} from '../store/sessions/port';
import { checkMessageSizes, validateReplyRequest, type ValidReply } from './validate-reply';

/** The Reply response (fits the generated ReplyResponse; step and next_step only for step-based agents). */
export interface AssistantReply {
  reply: string;
  session_id: string;
  agent: string;
  request_id: string;
  model: string;
  usage: {
    tokens_used: number;
    tokens_input: number;
    tokens_output: number;
    cost: number;
    timestamp: string;
  };
  step?: number;
  next_step?: number;
}

export interface ReplyDeps {
  /** Which agent answers a name for an organization (built-ins and stored profiles). */
  directory: AgentDirectory;
  /** One call per session at a time across replicas (Redis locks in distributed mode). */
  lock: SessionLock;
  sessions: SessionStore;
  responder: Responder;
  usage: UsagePublisher;
  historyLimit: number;
  /** Organizations' agents as data (overrides and their own); without it only the built-ins answer. */
  profiles?: AgentProfileStore;
  /** Organizations' knowledge bases; without them the built-ins answer from the shipped sample data. */
  knowledge?: { store: KnowledgeStore; retriever: KnowledgeRetriever };
  /** Where support hand-overs go (support_escalated webhooks). */
  escalations?: SupportEscalationPublisher;
  /** The recommendation service, for agents with the recommend tool. */
  recommender?: Recommender;
  /** Where finished replies are kept so a retry after a lost answer is not answered (and billed) twice. */
  answers?: AnsweredOnceOptions;
  /** Tokens a model is sent (system part, summary, history); older turns are summarized to fit. Undefined: no budget. */
  historyTokenBudget?: number;
  /** Tokens one message may have (413 above); undefined: no limit of the assistant's own. */
  messageMaxTokens?: number;
  /** Folds turns that no longer fit into the session's running summary; without it they are kept as excerpts. */
  summarizer?: Summarizer;
  /** The current time (relative dates in a model's reply are checked against it). */
  now?: () => Date;
}

/** What the user asked, for the person who takes over: the user's last messages, newest last. */
function escalationSummary(history: Array<{ role: string; content: string }>): string {
  return history
    .filter((m) => m.role === 'user')
    .slice(-3)
    .map((m) => m.content)
    .join('\n')
    .slice(0, 4000);
}

/** The model a call runs on: the responder's default when none is asked for. */
function resolveModel(requested: string, responder: Responder): string {
  return responder.checkModel(requested.trim() || responder.defaultModel);
}

/**
 * The key's `models` scope on the builtin engine, which answers here; a registry model is checked
 * by content when the reply is asked of it, with the same caller.
 */
function checkBuiltinAllowed(model: string, context: CallContext): void {
  if (!context.models || !isBuiltinModel(model) || context.models.some(isBuiltinModel)) return;
  throw new AppError(
    'model_not_allowed',
    `this API key may not use model ${model}; it may use: ${context.models.join(', ') || 'no model'}`,
    [{ field: '/model', reason: 'not among the models of this API key' }],
  );
}

/** How a reply is delivered: at once, or streamed (deltas, cancellable). */
interface Delivery {
  onDelta?: DeltaSink;
  signal?: AbortSignal;
  /** The caller's deadline (epoch ms), when it set one. */
  deadline?: number;
}

function ownSession(session: Session | undefined, valid: ValidReply): Session | undefined {
  if (session && session.userId !== valid.userId) {
    throw AppError.invalid(
      `session '${valid.sessionId}' belongs to another user`,
      '/session_id',
      'belongs to another user_id',
    );
  }
  return session;
}

/** One turn as the responder gets it. */
interface ReplyTurn {
  agent: Agent;
  profile?: AgentProfile;
  prepared: PreparedTurn;
  history: ChatMessage[];
  summary?: string;
  valid: ValidReply;
  model: string;
  context: CallContext;
  knowledge?: KnowledgeAccess;
  delivery: Delivery;
}

/** What the model is sent of the conversation, and the summary of the rest. */
interface Compaction {
  history: ChatMessage[];
  summary?: HistorySummary;
  /** The summarizing call, when this turn made one. */
  usage?: SummaryResult;
}

/** The session's messages after this turn (capped) with the summary's coverage moved by what the cap dropped. */
function keptHistory(
  messages: ChatMessage[],
  summary: HistorySummary | undefined,
  limit: number,
): { messages: ChatMessage[]; summary?: HistorySummary } {
  const kept = capHistory(messages, limit);
  if (!summary) return { messages: kept };
  return {
    messages: kept,
    summary: {
      text: summary.text,
      covered: Math.max(0, summary.covered - (messages.length - kept.length)),
    },
  };
}

/** Every model round's tokens are the reply's: the summarizing one too. */
function withSummaryUsage(
  output: ResponderOutput,
  usage: SummaryResult | undefined,
): ResponderOutput {
  if (!usage) return output;
  return {
    ...output,
    tokensInput: output.tokensInput + usage.tokensInput,
    tokensOutput: output.tokensOutput + usage.tokensOutput,
    cost: output.cost + usage.cost,
  };
}

/** next_step: the following step, unset after the last one. */
function nextStepOf(step: number | undefined, last = ONBOARDING_STEPS): number | undefined {
  return step !== undefined && step < last ? step + 1 : undefined;
}

/** A reply as answered: the responder's output, and the grounding check's findings on a model's words. */
type Answered = ResponderOutput & { grounding?: GroundingOutcome };

/**
 * The responder's reply with the agent's tools. Nothing of it is sent before it is checked: a
 * model's words must be grounded in the turn's facts (else the builtin engine's extractive answer
 * goes out), and only what was retrieved is linked. A streamed reply is produced whole, checked,
 * then streamed.
 */
async function respond(deps: ReplyDeps, turn: ReplyTurn): Promise<Answered> {
  const { agent, prepared, valid, knowledge, delivery } = turn;
  const tools = createToolbox({
    tools: turn.profile?.tools ?? [],
    knowledge,
    recommender: deps.recommender,
    userId: valid.userId,
    context: turn.context,
  });
  const output = await deps.responder.respond(
    {
      agent: agent.info.name,
      systemPrompt: prepared.systemPrompt,
      context: prepared.context,
      history: turn.history,
      summary: turn.summary,
      step: valid.step,
      prepared,
      agentImpl: agent,
      tools,
    },
    {
      model: turn.model,
      context: turn.context,
      signal: delivery.signal,
      deadline: delivery.deadline,
      // A streamed call streams from the model too (cancelling it stops the model), but nothing
      // unchecked reaches the client: the reply is streamed once checked, below.
      ...(delivery.onDelta ? { onDelta: () => undefined } : {}),
    },
  );
  // What the tools found may be cited like what was retrieved before the call.
  prepared.context.push(
    ...(tools?.retrieved ?? []).map((found) => ({ kind: 'knowledge' as const, found })),
  );
  const answered: Answered = isBuiltinModel(turn.model)
    ? { ...output, reply: keepRetrievedLinks(output.reply, retrievedUrls(prepared.context)) }
    : {
        ...output,
        ...groundedReply({
          text: output.reply,
          replyTokens: output.replyTokens ?? output.tokensOutput,
          model: output.model,
          agent,
          prepared,
          history: turn.history,
          summary: turn.summary,
          step: valid.step,
          now: deps.now?.() ?? new Date(),
          timeZone: valid.timeZone,
        }),
      };
  if (delivery.onDelta)
    for (const delta of wordDeltas(answered.reply)) await delivery.onDelta(delta);
  return answered;
}

/**
 * The turns the model is sent and the running summary: turns past the kept history or the
 * token budget are folded into the summary (by the model, or the builtin summarizer) rather than dropped.
 */
async function compact(
  deps: ReplyDeps,
  stored: Session | undefined,
  messages: ChatMessage[],
  input: Omit<ReplyTurn, 'history' | 'summary'>,
): Promise<Compaction> {
  const system = completionMessages({
    systemPrompt: input.prepared.systemPrompt,
    context: input.prepared.context,
    history: [],
    step: input.valid.step,
    prepared: input.prepared,
  })[0];
  const budget = isBuiltinModel(input.model) ? undefined : deps.historyTokenBudget;
  const summary = stored?.summary;
  const end = summaryEnd({
    messages,
    summary,
    historyLimit: deps.historyLimit,
    budget,
    systemTokens: countTokens(system?.content ?? ''),
  });
  const covered = Math.min(summary?.covered ?? 0, end);
  if (end <= covered)
    return {
      history: messages.slice(end),
      summary: summary && { text: summary.text, covered: end },
    };
  const turns = messages.slice(covered, end);
  const folded = await summarize(deps, summary?.text, turns, input.model, input.context);
  return {
    history: messages.slice(end),
    summary: { text: folded.text, covered: end },
    usage: folded,
  };
}

async function summarize(
  deps: ReplyDeps,
  previous: string | undefined,
  turns: ChatMessage[],
  model: string,
  context: CallContext,
): Promise<SummaryResult> {
  const fallback = {
    text: excerptSummary(previous, turns),
    model,
    tokensInput: 0,
    tokensOutput: 0,
    cost: 0,
  };
  if (!deps.summarizer) return fallback;
  try {
    const result = await deps.summarizer.summarize(previous, turns, model, context);
    return result.text.trim() ? result : fallback;
  } catch {
    return fallback; // the turn is answered all the same; the excerpts keep what was said
  }
}

/** Who a reply's usage is billed to, and under which route. */
function usageOf(context: CallContext, agent: string, requestId: string) {
  return {
    organization: context.organization,
    keyId: context.keyId,
    ...attributionOf(context),
    requestId,
    route: UsageRoutes.assistantChat,
    agent,
  };
}

/** The reply failed after a summarizing round: its tokens were spent all the same and are recorded as failed. */
async function recordSummaryOnly(
  deps: ReplyDeps,
  context: CallContext,
  agent: string,
  requestId: string,
  usage: SummaryResult | undefined,
): Promise<void> {
  if (!usage || usage.tokensInput + usage.tokensOutput === 0) return;
  await deps.usage.record({
    ...usageOf(context, agent, requestId),
    model: usage.model,
    tokensInput: usage.tokensInput,
    tokensOutput: usage.tokensOutput,
    cost: usage.cost,
    outcome: 'failed',
  });
}

async function answer(
  deps: ReplyDeps,
  { agent, profile }: ResolvedAgent,
  valid: ValidReply,
  model: string,
  context: CallContext,
  requestId: string,
  delivery: Delivery,
): Promise<AssistantReply> {
  // Independent reads, each an `_id` lookup: together, not one after the other.
  const [found, knowledge] = await Promise.all([
    deps.sessions.get(context.organization, valid.sessionId),
    deps.knowledge
      ? knowledgeAccess(
          deps.knowledge.store,
          deps.knowledge.retriever,
          context.organization,
          profile,
          valid.timeZone,
        )
      : undefined,
  ]);
  const stored = ownSession(found, valid);
  const merged = mergeHistory(stored?.messages ?? [], valid.messages);
  const recent = capHistory(merged.messages, deps.historyLimit);
  const latest = (recent[recent.length - 1]?.content ?? '').trim();
  const prepared = await agent.prepare({
    history: recent,
    added: merged.added,
    latest,
    step: valid.step,
    memory: stored?.memory ?? emptyMemory(),
    knowledge,
  });
  const callContext = { ...context, requestId };
  const turn = {
    agent,
    profile,
    prepared,
    valid,
    model,
    context: callContext,
    knowledge,
    delivery,
  };
  const compacted = await compact(deps, stored, merged.messages, turn);
  const answered = await respond(deps, {
    ...turn,
    history: compacted.history,
    summary: compacted.summary?.text,
  }).catch(async (error: unknown) => {
    await recordSummaryOnly(deps, context, agent.info.name, requestId, compacted.usage);
    throw error;
  });
  const output = withSummaryUsage(answered, compacted.usage);
  if (prepared.signals.handOver && deps.escalations) {
    await deps.escalations.publish(context.organization, {
      sessionId: valid.sessionId,
      userId: valid.userId,
      agent: agent.info.name,
      summary: escalationSummary(recent),
      reason: prepared.signals.handOver,
    });
  }
  await deps.usage.record({
    ...usageOf(context, agent.info.name, requestId),
    // Deterministic per call (Idempotency-Key or request id): a reply run twice is billed once.
    eventId: onceKeyOf({ ...context, requestId }, 'Reply')?.usageEventId,
    model: output.model,
    tokensInput: output.tokensInput,
    tokensOutput: output.tokensOutput,
    cost: output.cost,
    outcome: 'succeeded',
  });
  const now = new Date().toISOString();
  // Optimistic as well: the lock may have expired if this replica stalled past its TTL.
  const session: Session = {
    organization: context.organization,
    sessionId: valid.sessionId,
    userId: valid.userId,
    agent: agent.info.name,
    ...keptHistory(
      [
        ...merged.messages,
        {
          role: 'assistant',
          content: output.reply,
          ...(answered.grounding ? { grounding: answered.grounding } : {}),
        },
      ],
      compacted.summary,
      deps.historyLimit,
    ),
    memory: prepared.memory,
    createdAt: stored?.createdAt ?? now,
    updatedAt: now,
    version: stored?.version ?? 0,
  };
  await saveTurn(deps.sessions, {
    session,
    base: stored,
    incoming: valid.messages,
    historyLimit: deps.historyLimit,
  });
  return {
    reply: output.reply,
    session_id: valid.sessionId,
    agent: agent.info.name,
    request_id: requestId,
    model: output.model,
    usage: {
      tokens_used: output.tokensInput + output.tokensOutput,
      tokens_input: output.tokensInput,
      tokens_output: output.tokensOutput,
      cost: output.cost,
      timestamp: now,
    },
    step: valid.step,
    next_step: agent.info.usesSteps ? nextStepOf(valid.step, agent.info.steps) : undefined,
  };
}

/** Validates the call, then answers it under the session's lock. */
async function run(
  deps: ReplyDeps,
  request: ReplyRequest__Output,
  context: CallContext,
  delivery: Delivery,
): Promise<AssistantReply> {
  if (!context.organization) throw new AppError('unauthorized', 'the call carries no organization');
  const resolved = await deps.directory.resolve(context.organization, request.agent);
  const valid = validateReplyRequest(request, resolved.agent.info);
  if (deps.messageMaxTokens !== undefined)
    await checkMessageSizes(valid.messages, deps.messageMaxTokens);
  const model = resolveModel(valid.model || resolved.profile?.model || '', deps.responder);
  checkBuiltinAllowed(model, context);
  // Direct calls (without the gateway) get their own id so usage stays traceable.
  const requestId = context.requestId || newId('req');
  return deps.lock.run(
    context.organization,
    valid.sessionId,
    () => answer(deps, resolved, valid, model, context, requestId, delivery),
    delivery.deadline,
  );
}

/** Reply: the agent's answer to the latest user message, once per call (a retry gets the kept answer). */
export async function reply(
  deps: ReplyDeps,
  request: ReplyRequest__Output,
  context: CallContext,
  control?: CallControl,
): Promise<AssistantReply> {
  const answerIt = () =>
    run(deps, request, context, { signal: control?.signal, deadline: control?.deadline });
  return deps.answers ? answeredOnce(deps.answers, context, 'Reply', answerIt) : answerIt();
}

/** ReplyStream: the reply's text in deltas as the model produces it, then the Reply fields. */
export async function replyStream(
  deps: ReplyDeps,
  request: ReplyRequest__Output,
  context: CallContext,
  sink: StreamSink<ReplyChunk>,
): Promise<void> {
  const final = await run(deps, request, context, {
    onDelta: (delta) => sink.write({ delta }),
    signal: sink.control.signal,
    deadline: sink.control.deadline,
  });
  await sink.write({ final });
}

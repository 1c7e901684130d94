import type { Agent, PreparedTurn } from '../agents/types';
import type { ChatMessage, TurnGrounding } from '../store/sessions/port';
import { composeGrounded, factBlock, filtersInForce, frameOf } from './composition';
import { GroundedFacts, type GroundingIssue } from './grounding';
import { recordGrounding } from './grounding-metrics';

/** What the grounding check found on a model-written reply (kept on the stored turn). */
export interface GroundingOutcome extends TurnGrounding {
  issues: GroundingIssue[];
}

/** One model-written reply and the turn it answers. */
export interface ModelWrittenTurn {
  text: string;
  /** Tokens of the reply itself (its last round): a reply at the cap was cut. */
  replyTokens: number;
  model: string;
  agent: Agent;
  prepared: PreparedTurn;
  /** The conversation the model was sent (ending with the user's message) and the summary of older turns. */
  history: ChatMessage[];
  summary?: string;
  step?: number;
  now: Date;
  timeZone: string;
}

/** Everything a model was given as fact for a turn: the reply is checked against it. */
export function turnFacts(turn: Omit<ModelWrittenTurn, 'text' | 'replyTokens' | 'model'>): {
  facts: string[];
  userWords: string[];
} {
  const { prepared } = turn;
  const frame = frameOf(prepared, turn.step);
  const facts = [
    prepared.systemPrompt,
    ...prepared.context.map((item, i) => factBlock(item, i + 1)),
    filtersInForce(prepared) ?? '',
    ...frame.opening,
    ...frame.closing,
    turn.summary ?? '',
    ...turn.history.filter((m) => m.role !== 'user').map((m) => m.content),
  ];
  return { facts, userWords: turn.history.filter((m) => m.role === 'user').map((m) => m.content) };
}

/**
 * The reply a user gets for a model-written turn: the model's words inside the service's frame
 * when every price, number, date, time, link, contact and name in them is grounded and the reply
 * neither loops nor runs away; else the builtin engine's extractive answer for the same turn.
 */
export function groundedReply(turn: ModelWrittenTurn): {
  reply: string;
  grounding: GroundingOutcome;
} {
  const { facts, userWords } = turnFacts(turn);
  const given = new Set(
    turn.prepared.context.flatMap((item) => (item.kind === 'knowledge' ? [item.found.doc.id] : [])),
  );
  // An item of an earlier list that this turn is not about (the model mixed up "the second one").
  const otherItems = (turn.prepared.memory.dialogue?.shown ?? [])
    .filter((shown) => !given.has(shown.id))
    .map((shown) => shown.title);
  const checker = new GroundedFacts({
    facts,
    userWords,
    itemCount: turn.prepared.context.length,
    otherItems,
    now: turn.now,
    timeZone: turn.timeZone,
  });
  const issues = turn.text.trim()
    ? checker.issuesOf({ text: turn.text, tokensOutput: turn.replyTokens })
    : [{ kind: 'length' as const, value: '(empty reply)' }];
  const overruled = issues.length > 0;
  const grounding: GroundingOutcome = { model: turn.model, overruled, issues };
  recordGrounding(grounding);
  const reply = overruled
    ? turn.agent.composeOffline({
        prepared: turn.prepared,
        history: turn.history,
        step: turn.step,
      })
    : composeGrounded(turn.text, turn.prepared, frameOf(turn.prepared, turn.step));
  return { reply, grounding };
}

import { capHistory, mergeHistory } from './history';
import {
  SessionConflictError,
  type ChatMessage,
  type Session,
  type SessionMemory,
  type SessionStore,
} from '../store/sessions/port';

export interface Turn {
  /** The session as this call wants to store it (version = the one it read; 0 when new). */
  session: Session;
  /** What the call read (undefined for a new session). */
  base: Session | undefined;
  /** The client's messages of this call. */
  incoming: ChatMessage[];
  historyLimit: number;
}

const ATTEMPTS = 5;

/** Facts this turn set or changed win; the other writer's other facts and confirmed steps are kept. */
function rebaseMemory(
  ours: SessionMemory,
  base: SessionMemory | undefined,
  latest: SessionMemory,
): SessionMemory {
  const facts = { ...latest.facts };
  for (const [name, value] of Object.entries(ours.facts))
    if (base?.facts[name] !== value) facts[name] = value;
  const confirmedSteps = [
    ...new Set([...latest.onboarding.confirmedSteps, ...ours.onboarding.confirmedSteps]),
  ].sort((a, b) => a - b);
  const draft = ours.onboarding.draft ?? latest.onboarding.draft;
  const dialogue = ours.dialogue ?? latest.dialogue;
  return {
    ...(dialogue ? { dialogue } : {}),
    facts,
    onboarding: {
      confirmedSteps,
      lastStep: ours.onboarding.lastStep ?? latest.onboarding.lastStep,
      ...(draft ? { draft } : {}),
    },
  };
}

/** This turn (the client's messages and our reply) applied on top of what another writer stored meanwhile. */
function rebase(turn: Turn, latest: Session | undefined): Session {
  const reply = turn.session.messages[turn.session.messages.length - 1] as ChatMessage;
  if (!latest) return { ...turn.session, version: 0 };
  const history = capHistory(
    mergeHistory(latest.messages, turn.incoming).messages,
    turn.historyLimit,
  );
  // Either writer's summary, counted as covering none of the messages: the next turn folds them in again (redundant, never lost).
  const summary = turn.session.summary ?? latest.summary;
  return {
    ...turn.session,
    ...(summary ? { summary: { text: summary.text, covered: 0 } } : {}),
    messages: capHistory([...history, reply], turn.historyLimit),
    memory: rebaseMemory(turn.session.memory, turn.base?.memory, latest.memory),
    createdAt: latest.createdAt,
    version: latest.version,
  };
}

/**
 * Saves a turn with optimistic concurrency: when another replica saved the session since it was
 * read, the turn is merged onto the newer version (no message of either writer is lost) and saved again.
 */
export async function saveTurn(store: SessionStore, turn: Turn): Promise<Session> {
  let next = turn.session;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ...next, version: await store.save(next) };
    } catch (error) {
      if (!(error instanceof SessionConflictError) || attempt >= ATTEMPTS) throw error;
    }
    next = rebase(turn, await store.get(turn.session.organization, turn.session.sessionId));
  }
}

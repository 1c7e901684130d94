import { AppError } from '@switchyard/shared';

export type MessageRole = 'user' | 'system' | 'assistant';

export interface ChatMessage {
  role: MessageRole;
  content: string;
  /** On a reply a model wrote: what the grounding check found (see responders/grounded.ts). */
  grounding?: TurnGrounding;
}

/** What the grounding check found on a model-written reply, kept with the turn for operators. */
export interface TurnGrounding {
  /** The model whose words were checked. */
  model: string;
  /** The reply failed the check: the service's own extractive answer was sent instead. */
  overruled: boolean;
  /** What the reply stated without ground: kind (price, date, phone...) and the words. */
  issues: Array<{ kind: string; value: string }>;
}

/** Where an onboarding conversation stands. */
export interface OnboardingProgress {
  /** Steps the user confirmed as complete. */
  confirmedSteps: number[];
  /** The step the last reply was about. */
  lastStep?: number;
  /** The course draft built so far: what the user wrote, kept as written. */
  draft?: CourseDraft;
}

export interface CourseDraft {
  topic?: string;
  audience?: string;
  /** Modules as the user named them ("Module 3 Dashboards"). */
  modules: string[];
  /** What the user wrote at each step (by step number), verbatim. */
  notes: Record<string, string[]>;
  /** Steps before the latest one that are not confirmed yet. */
  openSteps: number[];
}

/** An item of a list the assistant showed (so "the second one" can be resolved). */
export interface ShownItem {
  collection: string;
  id: string;
  title: string;
  price?: number;
  startsAt?: string;
}

/** Search constraints in force, as stored (dates as ISO instants). */
export interface StoredConstraints {
  dates?: { from: string; to: string; phrase: string };
  cities?: string[];
  maxPrice?: number;
  audience?: string[];
  levels?: string[];
  tags?: string[];
}

/** Where a support conversation stands. */
export interface SupportState {
  /** The agent asked for an order or ticket reference. */
  awaitingReference?: boolean;
  /** Questions in a row that had no answer. */
  failures: number;
  /** The agent offered a person in its last reply. */
  offered?: boolean;
  /** Why the conversation was handed to a person (once per session). */
  escalated?: string;
  /** The article answered from last, and which of its passages were quoted. */
  article?: { collection: string; id: string; quoted: number[] };
  /** The last question that got an answer or an offer (what a bare reference continues). */
  question?: string;
}

/** What the conversation is about: the words and aspects of the last question that had them. */
export interface DialogueTopic {
  /** Content words as the user wrote them (normalized), e.g. ["full", "service"]. */
  words: string[];
  /** What was asked of it: price, when, where, age, hours, contact. */
  aspects: string[];
  /** It was answered with a list (events, courses), not with a line of a document. */
  listed?: boolean;
}

/** The structured context of the last turns (per session, like a thread's state). */
export interface DialogueState {
  constraints: StoredConstraints;
  /** The topic a follow-up without words of its own continues ("and on Saturday?"). */
  topic?: DialogueTopic;
  /** The list last shown, in order. */
  shown: ShownItem[];
  /** The item the conversation is about. */
  focus?: ShownItem;
  support?: SupportState;
}

/** What the assistant remembers beyond the (capped) message history. */
export interface SessionMemory {
  /** Facts the user stated, e.g. orderNumber, ticketNumber, courseTopic, audience. */
  facts: Record<string, string>;
  onboarding: OnboardingProgress;
  dialogue?: DialogueState;
}

export interface Session {
  organization: string;
  sessionId: string;
  /** A session belongs to the user who started it. */
  userId: string;
  /** The agent that answered last. */
  agent: string;
  messages: ChatMessage[];
  memory: SessionMemory;
  createdAt: string;
  updatedAt: string;
  /** The stored version this copy was read at (0: not stored yet); save() writes version + 1. */
  version: number;
  /** Turns that no longer fit the model's budget (or the kept history), summarized (see history-summary.ts). */
  summary?: HistorySummary;
}

/** A running summary of the conversation's oldest turns. */
export interface HistorySummary {
  text: string;
  /** How many of messages[] (from the first) it covers; turns dropped from messages[] are always covered. */
  covered: number;
}

export function emptyMemory(): SessionMemory {
  return { facts: {}, onboarding: { confirmedSteps: [] } };
}

/** Another writer saved the session since it was read (optimistic concurrency). */
export class SessionConflictError extends AppError {
  constructor(organization: string, sessionId: string) {
    super(
      'conflict',
      `session ${sessionId} of ${organization} was changed concurrently; read it again`,
    );
  }
}

/**
 * Conversation sessions, always scoped by organization. Writes are optimistic: save() succeeds
 * only if the stored version is still the one the session was read at, so two replicas
 * answering the same session cannot overwrite each other's messages.
 */
export interface SessionStore {
  /** The latest version, or undefined when the organization has no such session. */
  get(organization: string, sessionId: string): Promise<Session | undefined>;
  /** Stores the session as version session.version + 1 and returns that; throws SessionConflictError if it moved on. */
  save(session: Session): Promise<number>;
  /** Releases the connection (no-op in memory). */
  close(): Promise<void>;
}

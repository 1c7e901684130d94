import { AppError } from '@switchyard/shared';

export type MessageRole = 'user' | 'system' | 'assistant';

export interface ChatMessage {
  role: MessageRole;
  content: string;
}

/** Where an onboarding conversation stands. */
export interface OnboardingProgress {
  /** Steps the user confirmed as complete. */
  confirmedSteps: number[];
  /** The step the last reply was about. */
  lastStep?: number;
  /** The course draft built so far (topic, audience, modules and the catalogue course it builds on). */
  draft?: CourseDraft;
}

export interface CourseDraft {
  topic?: string;
  audience?: string;
  /** "Module title: lesson, lesson". */
  modules: string[];
  /** The organization's course the outline comes from, cited. */
  basedOn?: { id: string; title: string; url?: string };
}

/** What the assistant remembers beyond the (capped) message history. */
export interface SessionMemory {
  /** Facts the user stated, e.g. orderNumber, ticketNumber, courseTopic, audience. */
  facts: Record<string, string>;
  onboarding: OnboardingProgress;
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

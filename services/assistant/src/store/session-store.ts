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
}

export function emptyMemory(): SessionMemory {
  return { facts: {}, onboarding: { confirmedSteps: [] } };
}

/** Conversation sessions, always scoped by organization (MongoDB later, same interface). */
export interface SessionStore {
  get(organization: string, sessionId: string): Promise<Session | undefined>;
  /** Creates or replaces the session (organization, sessionId). */
  save(session: Session): Promise<void>;
}

export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Session>();

  async get(organization: string, sessionId: string): Promise<Session | undefined> {
    const session = this.sessions.get(keyOf(organization, sessionId));
    // Copies, so a caller's changes only count once saved.
    return session ? structuredClone(session) : undefined;
  }

  async save(session: Session): Promise<void> {
    this.sessions.set(keyOf(session.organization, session.sessionId), structuredClone(session));
  }
}

function keyOf(organization: string, sessionId: string): string {
  return JSON.stringify([organization, sessionId]);
}

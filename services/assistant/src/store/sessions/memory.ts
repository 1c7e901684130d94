import { SessionConflictError, type Session, type SessionStore } from './port';

export class InMemorySessionStore implements SessionStore {
  constructor(private readonly sessions = new Map<string, Session>()) {}

  /** Another store instance on the same data, as a second replica on the same database. */
  sharing(): InMemorySessionStore {
    return new InMemorySessionStore(this.sessions);
  }

  async get(organization: string, sessionId: string): Promise<Session | undefined> {
    const session = this.sessions.get(keyOf(organization, sessionId));
    // Copies, so a caller's changes only count once saved.
    return session ? structuredClone(session) : undefined;
  }

  async save(session: Session): Promise<number> {
    const key = keyOf(session.organization, session.sessionId);
    if ((this.sessions.get(key)?.version ?? 0) !== session.version)
      throw new SessionConflictError(session.organization, session.sessionId);
    const version = session.version + 1;
    this.sessions.set(key, { ...structuredClone(session), version });
    return version;
  }

  async close(): Promise<void> {}
}

function keyOf(organization: string, sessionId: string): string {
  return JSON.stringify([organization, sessionId]);
}

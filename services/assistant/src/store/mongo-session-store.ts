import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { SessionConflictError, type Session, type SessionStore } from './session-store';

export const SESSIONS_COLLECTION = 'sessions';
/** Older versions kept behind the newest, so a writer that read long ago still collides on insert. */
const KEPT_VERSIONS = 20;

/**
 * SessionStore on MongoDB. Every save INSERTS the next version under a unique index on
 * (organization, sessionId, version): of two writers that read the same version exactly one
 * succeeds. (A version-guarded update is not enough: FerretDB applies concurrent conditional
 * updates of one document without isolation; measured: several "winners" per race.) Reads take
 * the highest version; versions far behind it are pruned.
 */
export class MongoSessionStore implements SessionStore {
  private readonly sessions: Collection<Session>;

  constructor(
    db: Db,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.sessions = db.collection<Session>(SESSIONS_COLLECTION, { ignoreUndefined: true });
  }

  async ensureIndexes(): Promise<void> {
    await this.sessions.createIndex({ organization: 1, sessionId: 1, version: 1 }, { unique: true, name: 'organization_session_id_version' });
  }

  async get(organization: string, sessionId: string): Promise<Session | undefined> {
    const document = await this.sessions.find({ organization, sessionId }, { projection: { _id: 0 } }).sort({ version: -1 }).limit(1).next();
    return document ?? undefined;
  }

  async save(session: Session): Promise<number> {
    const { organization, sessionId } = session;
    // Cheap early check; the insert below is what decides a race.
    const latest = await this.sessions.find({ organization, sessionId }, { projection: { version: 1 } }).sort({ version: -1 }).limit(1).next();
    if ((latest?.version ?? 0) !== session.version) throw new SessionConflictError(organization, sessionId);
    const version = session.version + 1;
    try {
      await this.sessions.insertOne({ ...structuredClone(session), version });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new SessionConflictError(organization, sessionId);
      throw error;
    }
    if (version > KEPT_VERSIONS) await this.sessions.deleteMany({ organization, sessionId, version: { $lte: version - KEPT_VERSIONS } });
    return version;
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}

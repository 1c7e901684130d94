import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { documentId } from './document-id';
import { SessionConflictError, type Session, type SessionStore } from './session-store';

export const SESSIONS_COLLECTION = 'sessions';
/** The latest version of each session, a copy written after the version's insert (a hint). */
export const SESSION_HEADS_COLLECTION = 'session_heads';
/** Older versions kept behind the newest, so a writer that read long ago still collides on insert. */
const KEPT_VERSIONS = 20;

type Stored<T> = T & { _id: string };

/**
 * SessionStore on MongoDB; every command addresses one document by `_id` (a scan of a growing
 * collection on FerretDB otherwise). Every save INSERTS the next version as
 * `_id: organization␀session␀version`: of two writers that read the same version the `_id`
 * index lets exactly one succeed. (A version-guarded update is not enough: FerretDB applies
 * concurrent conditional updates of one document without isolation; measured: several
 * "winners" per race.) The winner then copies the session into its head (`_id:
 * organization␀session`), which readers take as a hint: they probe version + 1 by `_id` and
 * move forward, so a head that lags (a crash between the two writes, or two head writes
 * applied out of order) heals on read. Versions far behind are pruned by `_id`.
 */
export class MongoSessionStore implements SessionStore {
  private readonly versions: Collection<Stored<Session>>;
  private readonly heads: Collection<Stored<Session>>;

  constructor(
    db: Db,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.versions = db.collection<Stored<Session>>(SESSIONS_COLLECTION, { ignoreUndefined: true });
    this.heads = db.collection<Stored<Session>>(SESSION_HEADS_COLLECTION, { ignoreUndefined: true });
  }

  /** Nothing beyond `_id`: every read and write is by `_id`. */
  async ensureIndexes(): Promise<void> {}

  async get(organization: string, sessionId: string): Promise<Session | undefined> {
    let latest = (await this.heads.findOne({ _id: documentId(organization, sessionId) }, { projection: { _id: 0 } })) ?? undefined;
    for (;;) {
      const next = await this.versions.findOne({ _id: versionId(organization, sessionId, (latest?.version ?? 0) + 1) }, { projection: { _id: 0 } });
      if (!next) return latest;
      latest = next;
    }
  }

  async save(session: Session): Promise<number> {
    const { organization, sessionId } = session;
    const version = session.version + 1;
    // The version read must still be stored: a made-up one, or one pruned long ago (the session moved far on), conflicts.
    if (session.version > 0 && !(await this.versions.findOne({ _id: versionId(organization, sessionId, session.version) }, { projection: { _id: 1 } }))) {
      throw new SessionConflictError(organization, sessionId);
    }
    const stored = { ...structuredClone(session), version };
    try {
      await this.versions.insertOne({ ...stored, _id: versionId(organization, sessionId, version) });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new SessionConflictError(organization, sessionId);
      throw error;
    }
    await this.advanceHead(stored);
    if (version > KEPT_VERSIONS) await this.versions.deleteOne({ _id: versionId(organization, sessionId, version - KEPT_VERSIONS) });
    return version;
  }

  /** The head moves forward only; a head already past this version means the insert revived a pruned version: undone, a conflict. */
  private async advanceHead(session: Session): Promise<void> {
    const { organization, sessionId, version } = session;
    const _id = documentId(organization, sessionId);
    try {
      await this.heads.replaceOne({ _id, version: { $lt: version } }, session, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      await this.versions.deleteOne({ _id: versionId(organization, sessionId, version) });
      throw new SessionConflictError(organization, sessionId);
    }
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}

function versionId(organization: string, sessionId: string, version: number): string {
  return documentId(organization, sessionId, version);
}

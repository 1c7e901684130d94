import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { documentId } from '../document-id';
import { GroupedInserts } from '../grouped-inserts';
import { SessionConflictError, type Session, type SessionStore } from './port';

export const SESSIONS_COLLECTION = 'sessions';
/** A recent version of each session (a copy), where readers start looking for the latest. */
export const SESSION_HEADS_COLLECTION = 'session_heads';
/** The head is written at every HEAD_EVERY-th version (a write less per turn); readers probe at most that many versions past it. */
export const HEAD_EVERY = 4;

type Stored<T> = T & { _id: string };

/**
 * SessionStore on MongoDB; every command addresses documents by `_id`. Every save INSERTS the
 * next version (grouped with
 * the other turns' inserts of the moment) as
 * `_id: organization␀session␀version`: of two writers that read the same version the `_id`
 * index lets exactly one succeed, and the versions before it stay readable. Every HEAD_EVERY-th winner copies the session into its head (`_id:
 * organization␀session`), which readers take as a hint: they probe version + 1 by `_id` and
 * move forward, so a head that lags (a crash between the two writes, two head writes applied
 * out of order) only costs probes. Versions the head has passed by HEAD_EVERY are pruned, except
 * version 1, on which a writer that took the session for new collides.
 */
export class MongoSessionStore implements SessionStore {
  private readonly versions: Collection<Stored<Session>>;
  private readonly heads: Collection<Stored<Session>>;
  /** Versions of concurrent turns go to the database together. */
  private readonly inserts: GroupedInserts<Stored<Session>>;

  constructor(
    db: Db,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.versions = db.collection<Stored<Session>>(SESSIONS_COLLECTION, { ignoreUndefined: true });
    this.heads = db.collection<Stored<Session>>(SESSION_HEADS_COLLECTION, {
      ignoreUndefined: true,
    });
    this.inserts = new GroupedInserts(this.versions);
  }

  /** Nothing beyond `_id`: every read and write is by `_id`. */
  async ensureIndexes(): Promise<void> {}

  async get(organization: string, sessionId: string): Promise<Session | undefined> {
    let latest =
      (await this.heads.findOne(
        { _id: documentId(organization, sessionId) },
        { projection: { _id: 0 } },
      )) ?? undefined;
    for (;;) {
      const next = await this.versions.findOne(
        { _id: documentId(organization, sessionId, (latest?.version ?? 0) + 1) },
        { projection: { _id: 0 } },
      );
      if (!next) return latest;
      latest = next;
    }
  }

  async save(session: Session): Promise<number> {
    const { organization, sessionId } = session;
    // A version read long ago (pruned since) or made up conflicts; the insert decides a race (version 1 is never pruned, so "new" collides too).
    if (
      session.version > 0 &&
      !(await this.versions.findOne(
        { _id: documentId(organization, sessionId, session.version) },
        { projection: { _id: 1 } },
      ))
    ) {
      throw new SessionConflictError(organization, sessionId);
    }
    const version = session.version + 1;
    const stored = { ...structuredClone(session), version };
    if (
      !(await this.inserts.insert({ ...stored, _id: documentId(organization, sessionId, version) }))
    )
      throw new SessionConflictError(organization, sessionId);
    if (version % HEAD_EVERY === 0) await this.advanceHead(stored);
    return version;
  }

  /** Moves the head forward (a head already further stays), then prunes the versions before the previous head but the first. */
  private async advanceHead(session: Session): Promise<void> {
    const { organization, sessionId, version } = session;
    try {
      await this.heads.replaceOne(
        { _id: documentId(organization, sessionId), version: { $lt: version } },
        session,
        { upsert: true },
      );
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    for (let old = Math.max(2, version - 2 * HEAD_EVERY + 1); old <= version - HEAD_EVERY; old++) {
      await this.versions.deleteOne({ _id: documentId(organization, sessionId, old) });
    }
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}

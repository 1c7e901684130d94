import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { documentId } from '../document-id';
import { SessionConflictError, type Session, type SessionStore } from './port';

export const SESSIONS_COLLECTION = 'sessions';
/** Where an earlier release kept a copy of each session's recent version; dropped by the migration. */
const LEGACY_HEADS_COLLECTION = 'session_heads';
/** Migrations done on this database, so a start after the first skips the scan of every session. */
const MIGRATIONS_COLLECTION = 'migrations';
const ONE_DOCUMENT_PER_SESSION = 'sessions-one-document';
/** `_id` of a version document of an earlier release: `organization␀session␀version`. */
// eslint-disable-next-line no-control-regex -- NUL separates an _id's parts (see documentId)
const LEGACY_VERSION_ID = /^[^\x00]*\x00[^\x00]*\x00[0-9]+$/;

type Stored<T> = T & { _id: string };

/**
 * SessionStore on MongoDB: one document per session (`_id: organization␀session`), so a turn
 * is one read and one write. A save that finds the session moved on since the turn read it
 * (another `_id` on insert, another version on replace) tells the turn to rebase (see saveTurn).
 */
export class MongoSessionStore implements SessionStore {
  private readonly sessions: Collection<Stored<Session>>;

  constructor(
    private readonly db: Db,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.sessions = db.collection<Stored<Session>>(SESSIONS_COLLECTION, { ignoreUndefined: true });
  }

  /** Nothing beyond `_id`; sessions an earlier release stored by version are moved to one document each. */
  async ensureIndexes(): Promise<void> {
    await this.migrateVersionedSessions();
  }

  async get(organization: string, sessionId: string): Promise<Session | undefined> {
    return (
      (await this.sessions.findOne(
        { _id: documentId(organization, sessionId) },
        { projection: { _id: 0 } },
      )) ?? undefined
    );
  }

  /**
   * A new session is an insert (it collides on `_id` if another turn stored it first); a later
   * version replaces the document only where it still holds the version read. Neither is an
   * upsert, which costs FerretDB a read before its write.
   */
  async save(session: Session): Promise<number> {
    const { organization, sessionId } = session;
    const _id = documentId(organization, sessionId);
    const version = session.version + 1;
    const stored = { ...structuredClone(session), version };
    if (session.version === 0) {
      try {
        await this.sessions.insertOne({ _id, ...stored });
      } catch (error) {
        if (isDuplicateKeyError(error)) throw new SessionConflictError(organization, sessionId);
        throw error;
      }
      return version;
    }
    const { matchedCount } = await this.sessions.replaceOne(
      { _id, version: session.version },
      stored,
    );
    if (matchedCount === 0) throw new SessionConflictError(organization, sessionId);
    return version;
  }

  async close(): Promise<void> {
    await this.onClose();
  }

  /**
   * An earlier release stored every version as its own document plus a head copy. Each
   * session's latest version becomes its document (a newer one already there stays), then the
   * version documents and the heads go. Idempotent: replicas starting together may both run it.
   * Recorded in `migrations` once done, so later starts skip the scan of every session's `_id`.
   */
  private async migrateVersionedSessions(): Promise<void> {
    const migrations = this.db.collection<{ _id: string; at: Date }>(MIGRATIONS_COLLECTION);
    if (await migrations.findOne({ _id: ONE_DOCUMENT_PER_SESSION })) return;
    const legacy = this.sessions.find({ _id: { $regex: LEGACY_VERSION_ID } }).sort({ _id: 1 });
    // Sorted by `_id`, a session's versions are adjacent (NUL sorts before any other character).
    let group: { id: string; ids: string[]; latest: Stored<Session> } | undefined;
    const finish = async () => {
      if (!group) return;
      const { _id: _versionId, ...latest } = group.latest;
      try {
        await this.sessions.replaceOne(
          { _id: group.id, version: { $lt: latest.version } },
          latest,
          { upsert: true },
        );
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error; // a newer document is already there
      }
      await this.sessions.deleteMany({ _id: { $in: group.ids } });
    };
    for await (const stored of legacy) {
      const id = documentId(stored.organization, stored.sessionId);
      if (group?.id !== id) {
        await finish();
        group = { id, ids: [], latest: stored };
      }
      group.ids.push(stored._id);
      if (stored.version > group.latest.version) group.latest = stored;
    }
    await finish();
    if ((await this.db.listCollections({ name: LEGACY_HEADS_COLLECTION }).toArray()).length > 0)
      await this.db.dropCollection(LEGACY_HEADS_COLLECTION).catch(() => undefined);
    // Written last: a start that dies midway runs the migration again.
    await migrations
      .insertOne({ _id: ONE_DOCUMENT_PER_SESSION, at: new Date() })
      .catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error; // another replica finished it too
      });
  }
}

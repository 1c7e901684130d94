import { IANAZone } from 'luxon';
import { AppError, type ErrorDetail } from '@switchyard/shared';
import type { Embedder } from './embedder';
import type { DataUpdatedPublisher } from '@switchyard/shared';
import { chunksOf, type KnowledgeDocument } from './documents';
import { parseImport, type DocumentInput, type FieldMap } from './import-formats';
import {
  assertValid,
  COLLECTION_KINDS,
  fieldProblems,
  isCollectionKind,
  type CollectionKind,
} from './kinds';
import {
  collectionNotFound,
  type DocumentPage,
  type KnowledgeCollection,
  type KnowledgeStore,
} from '../store/knowledge/port';

export const MAX_BATCH = 1000;
/** Rows of one import file (it is written in batches of MAX_BATCH). */
export const MAX_IMPORT = 20_000;
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export interface ImportResult {
  count: number;
  /** The file's headers the kind does not know, kept as metadata. */
  metadataFields: string[];
}

export interface NewCollection {
  name: string;
  kind: string;
  description?: string;
  timeZone?: string;
}

/** Knowledge bases of organizations: validation, chunking, storage and the data.updated announcement. */
export class KnowledgeService {
  constructor(
    readonly store: KnowledgeStore,
    private readonly events: DataUpdatedPublisher,
    private readonly now: () => Date = () => new Date(),
    private readonly embedder?: Embedder,
  ) {}

  async createCollection(organization: string, input: NewCollection): Promise<KnowledgeCollection> {
    const problems: ErrorDetail[] = [];
    if (!NAME_PATTERN.test(input.name))
      problems.push({ field: '/name', reason: `must match ${NAME_PATTERN.source}` });
    if (!isCollectionKind(input.kind))
      problems.push({ field: '/kind', reason: `must be one of ${COLLECTION_KINDS.join(', ')}` });
    // Empty: dates are read in the organization's time zone (its setting, sent with each call).
    const timeZone = input.timeZone?.trim() ?? '';
    if (timeZone && !IANAZone.isValidZone(timeZone))
      problems.push({
        field: '/time_zone',
        reason: 'must be an IANA time zone such as Europe/Berlin',
      });
    assertValid(problems, 'the collection');
    const at = this.now().toISOString();
    const collection: KnowledgeCollection = {
      organization,
      name: input.name,
      kind: input.kind as CollectionKind,
      description: input.description ?? '',
      timeZone,
      documentCount: 0,
      revision: 0,
      createdAt: at,
      updatedAt: at,
    };
    await this.store.createCollection(collection);
    return collection;
  }

  async collection(organization: string, name: string): Promise<KnowledgeCollection> {
    const found = await this.store.getCollection(organization, name);
    if (!found) throw collectionNotFound(name);
    return found;
  }

  /** Validates and writes 1..MAX_BATCH documents, then announces them. */
  async upsert(organization: string, name: string, inputs: DocumentInput[]): Promise<number> {
    checkBatchSize(inputs.length, '/documents');
    const collection = await this.collection(organization, name);
    const documents = await this.embed(
      organization,
      this.prepare(collection, inputs, '/documents'),
    );
    await this.store.upsertDocuments(organization, name, documents);
    await this.events.publish(organization, name, documents.length);
    return documents.length;
  }

  /**
   * A JSON Lines, JSON array or CSV file, its headers mapped by `fieldMap`: validated whole
   * (nothing is written when a row is bad), written in batches, announced once.
   */
  async import(
    organization: string,
    name: string,
    format: string,
    content: string,
    fieldMap: FieldMap = {},
  ): Promise<ImportResult> {
    const collection = await this.collection(organization, name);
    const { documents: inputs, metadataFields } = parseImport(
      format,
      content,
      collection.kind,
      fieldMap,
    );
    if (inputs.length === 0)
      throw AppError.invalid('the file holds no documents', '/content', 'holds no documents');
    if (inputs.length > MAX_IMPORT)
      throw new AppError(
        'payload_too_large',
        `an import holds at most ${MAX_IMPORT} documents; split the file`,
      );
    const documents = await this.embed(organization, this.prepare(collection, inputs, '/content'));
    for (let i = 0; i < documents.length; i += MAX_BATCH)
      await this.store.upsertDocuments(organization, name, documents.slice(i, i + MAX_BATCH));
    await this.events.publish(organization, name, documents.length);
    return { count: documents.length, metadataFields };
  }

  async delete(organization: string, name: string, ids: string[]): Promise<number> {
    checkBatchSize(ids.length, '/ids');
    await this.collection(organization, name);
    const removed = await this.store.deleteDocuments(organization, name, ids);
    if (removed > 0) await this.events.publish(organization, name, removed);
    return removed;
  }

  async document(organization: string, name: string, id: string): Promise<KnowledgeDocument> {
    await this.collection(organization, name);
    const found = await this.store.getDocument(organization, name, id);
    if (!found) throw AppError.notFound(`document '${id}' not found in collection '${name}'`);
    return found;
  }

  list(organization: string, name: string, limit: number, after?: string): Promise<DocumentPage> {
    return this.store.listDocuments(
      organization,
      name,
      Math.min(Math.max(limit || 100, 1), MAX_BATCH),
      after || undefined,
    );
  }

  /** Vectors for every chunk, before anything is written (a failing model fails the call, writing nothing). */
  private async embed(
    organization: string,
    documents: KnowledgeDocument[],
  ): Promise<KnowledgeDocument[]> {
    const embedding = await this.embedder?.embed(
      documents.flatMap((d) => d.chunks),
      organization,
    );
    if (!embedding) return documents;
    const { vectors, model } = embedding;
    let next = 0;
    return documents.map((d) => ({
      ...d,
      embeddings: d.chunks.map(() => vectors[next++] as number[]),
      embeddingModel: model,
    }));
  }

  private prepare(
    collection: KnowledgeCollection,
    inputs: DocumentInput[],
    at: string,
  ): KnowledgeDocument[] {
    const problems: ErrorDetail[] = [];
    const seen = new Set<string>();
    inputs.forEach((input, index) => {
      const where = input.at ?? `${at}/${index}`;
      if (!ID_PATTERN.test(input.id))
        problems.push({ field: `${where}/id`, reason: `must match ${ID_PATTERN.source}` });
      else if (seen.has(input.id))
        problems.push({ field: `${where}/id`, reason: 'repeats an earlier id of the batch' });
      seen.add(input.id);
      problems.push(...fieldProblems(collection.kind, input.fields, where));
    });
    assertValid(problems, 'the documents');
    const updatedAt = this.now().toISOString();
    return inputs.map((input) => ({
      organization: collection.organization,
      collection: collection.name,
      id: input.id,
      kind: collection.kind,
      fields: input.fields,
      chunks: chunksOf(collection.kind, input.id, input.fields),
      updatedAt,
    }));
  }
}

function checkBatchSize(size: number, field: string): void {
  if (size < 1)
    throw AppError.invalid('a batch needs at least one entry', field, 'must not be empty');
  if (size > MAX_BATCH)
    throw new AppError(
      'payload_too_large',
      `a batch holds at most ${MAX_BATCH} entries (got ${size})`,
      [{ field, reason: `must have <= ${MAX_BATCH} items` }],
    );
}

import { AppError } from '@switchyard/shared';
import type { CollectionKind } from '../../knowledge/kinds';

/** A stored document of a knowledge collection; always one organization's. */
export interface KnowledgeDocument {
  organization: string;
  collection: string;
  id: string;
  kind: CollectionKind;
  fields: Record<string, unknown>;
  /** Searchable text pieces (the title leads each one). */
  chunks: string[];
  /** One vector per chunk when an embeddings model is configured (else absent). */
  embeddings?: number[][];
  /** The model that made the embeddings (a different model's vectors are not compared). */
  embeddingModel?: string;
  updatedAt: string;
}

/** A knowledge collection of one organization. */
export interface KnowledgeCollection {
  organization: string;
  name: string;
  kind: CollectionKind;
  description: string;
  /** IANA zone in which dates of the user's words are resolved; '' = the organization's time zone. */
  timeZone: string;
  documentCount: number;
  /** Bumped by every write, so replicas know when their search index is stale. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentPage {
  documents: KnowledgeDocument[];
  /** The id to continue after; undefined on the last page. */
  nextAfter?: string;
}

/**
 * Knowledge collections and their documents, always scoped by organization: no method reads or
 * writes across organizations.
 */
export interface KnowledgeStore {
  /** Throws conflict when the organization already has a collection of that name. */
  createCollection(collection: KnowledgeCollection): Promise<void>;
  getCollection(organization: string, name: string): Promise<KnowledgeCollection | undefined>;
  listCollections(organization: string): Promise<KnowledgeCollection[]>;
  /** Removes the collection and its documents; false when there was none. */
  deleteCollection(organization: string, name: string): Promise<boolean>;
  /** Inserts or replaces documents by id; bumps the revision and recounts. */
  upsertDocuments(
    organization: string,
    collection: string,
    documents: KnowledgeDocument[],
  ): Promise<void>;
  /** How many of the ids existed and were removed. */
  deleteDocuments(organization: string, collection: string, ids: string[]): Promise<number>;
  getDocument(
    organization: string,
    collection: string,
    id: string,
  ): Promise<KnowledgeDocument | undefined>;
  /** Ordered by id. */
  listDocuments(
    organization: string,
    collection: string,
    limit: number,
    after?: string,
  ): Promise<DocumentPage>;
  /** Every document of the collection (to build a search index). */
  allDocuments(organization: string, collection: string): Promise<KnowledgeDocument[]>;
  close(): Promise<void>;
}

export function collectionExists(organization: string, name: string): AppError {
  return new AppError(
    'conflict',
    `collection '${name}' already exists in organization ${organization}`,
  );
}

export function collectionNotFound(name: string): AppError {
  return AppError.notFound(`knowledge collection '${name}' not found`);
}

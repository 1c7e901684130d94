import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Capability } from '../text-model';

/** The provider parameter that caps output tokens: newer OpenAI models refuse max_tokens. */
export const OUTPUT_TOKEN_PARAMS = ['max_tokens', 'max_completion_tokens'] as const;
export type OutputTokenParam = (typeof OUTPUT_TOKEN_PARAMS)[number];

/** What the catalog knows of one hosted model. */
export interface CatalogModel {
  provider: string;
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  contextWindow: number;
  maxOutputTokens: number;
  outputTokenParam?: OutputTokenParam;
  /** Embedding models say so ("embeddings"); others can do every text operation. */
  capabilities?: Capability[];
}

export interface ModelCatalog {
  source: string;
  pricesAsOf: string;
  models: Record<string, CatalogModel>;
}

/** The bundled catalog (config/model-catalog.json next to src/ and dist/). */
export const BUNDLED_CATALOG_PATH = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'config',
  'model-catalog.json',
);

let bundled: ModelCatalog | undefined;

/** Read once; a broken bundled file is a packaging error and fails startup loudly. */
export function bundledCatalog(): ModelCatalog {
  bundled ??= JSON.parse(fs.readFileSync(BUNDLED_CATALOG_PATH, 'utf8')) as ModelCatalog;
  return bundled;
}

/** The catalog entry for a model name, case-insensitive. */
export function catalogEntry(catalog: ModelCatalog, name: string): CatalogModel | undefined {
  const wanted = name.toLowerCase();
  const key = Object.keys(catalog.models).find((id) => id.toLowerCase() === wanted);
  return key === undefined ? undefined : catalog.models[key];
}

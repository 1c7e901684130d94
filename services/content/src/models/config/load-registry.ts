import * as fs from 'node:fs';
import Ajv, { type ErrorObject } from 'ajv';
import { stripJsonComments } from './jsonc';
import { TEXT_CAPABILITIES } from '../text-model';
import { bundledCatalog, catalogEntry, type ModelCatalog } from './catalog';
import { deploymentProblems } from './deployments';
import {
  REGISTRY_SCHEMA,
  type ModelEntry,
  type RegistryFile,
  type RegistryFileInput,
  type RemoteEntry,
  type RemoteEntryInput,
} from './registry-schema';

/** Where the registry comes from: inline JSON (containers) wins over the file. */
export interface RegistrySource {
  path: string;
  inlineJson: string;
}

/** The registry cannot be used; the message lists every problem found. */
export class RegistryConfigError extends Error {
  constructor(
    readonly origin: string,
    readonly problems: string[],
  ) {
    super(`invalid model registry (${origin}):\n  ${problems.join('\n  ')}`);
    this.name = 'RegistryConfigError';
  }
}

const ajv = new Ajv({ allErrors: true, discriminator: true, strict: true });
const validateSchema = ajv.compile<RegistryFileInput>(REGISTRY_SCHEMA);

function describe(error: ErrorObject): string {
  const at = error.instancePath || '/';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const extra = String(params.additionalProperty);
    const hint = /key|secret|token/i.test(extra)
      ? ' (put the NAME of an environment variable in apiKeyEnv, never a key)'
      : '';
    return `${at}: unknown property "${extra}"${hint}`;
  }
  if (error.keyword === 'enum')
    return `${at}: must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
  if (error.keyword === 'discriminator')
    return `${at}: provider must be one of builtin, openai-compatible, azure-openai, apertium, llama-cpp, onnx`;
  return `${at}: ${error.message ?? 'is invalid'}`;
}

function readSource(source: RegistrySource): { origin: string; text: string } {
  if (source.inlineJson.trim() !== '')
    return { origin: 'MODEL_REGISTRY_JSON', text: source.inlineJson };
  try {
    return { origin: source.path, text: fs.readFileSync(source.path, 'utf8') };
  } catch (error) {
    throw new RegistryConfigError(source.path, [
      `cannot read the file (MODEL_REGISTRY_PATH): ${(error as Error).message}`,
    ]);
  }
}

function isRemote<E extends { provider: string }>(
  entry: E,
): entry is Extract<E, { provider: 'openai-compatible' | 'azure-openai' }> {
  return entry.provider === 'openai-compatible' || entry.provider === 'azure-openai';
}

/**
 * A remote entry completed from the catalog: prices (not for local models), limits and output-cap
 * parameter of the model it names, every capability, and its id as the upstream model; fields the
 * entry sets win. A model the catalog does not know must give its limits (and prices) itself.
 */
function withCatalog(
  entry: RemoteEntryInput,
  catalog: ModelCatalog,
): { entry: RemoteEntry; problems: string[] } {
  const name = entry.catalogModel ?? entry.upstreamModel ?? entry.id;
  const known = catalogEntry(catalog, name);
  const {
    provider: _vendor,
    inputPricePerMillion,
    outputPricePerMillion,
    ...limits
  } = known ?? { provider: '' };
  const merged = {
    ...limits,
    ...(known && entry.local !== true ? { inputPricePerMillion, outputPricePerMillion } : {}),
    capabilities: known?.capabilities ?? [...TEXT_CAPABILITIES],
    upstreamModel: entry.id,
    ...entry,
    // A model of deployments only: the first one's URL stands for the model's own.
    baseUrl: entry.baseUrl ?? entry.deployments?.find((d) => d.baseUrl)?.baseUrl,
  } as RemoteEntry;
  const problems: string[] = [];
  if (entry.catalogModel !== undefined && !known)
    problems.push(
      `model ${entry.id}: catalogModel "${entry.catalogModel}" is not in the model catalog`,
    );
  const missing = (['contextWindow', 'maxOutputTokens'] as const).filter(
    (field) => merged[field] === undefined,
  );
  if (missing.length > 0 && problems.length === 0) {
    problems.push(
      `model ${entry.id}: "${name}" is not in the model catalog; set ${missing.join(' and ')} (and the prices, unless "local": true)`,
    );
  }
  return { entry: merged, problems };
}

/** Names must be unique across ids and aliases (case-insensitive), as requests resolve either. */
function nameProblems(models: ModelEntry[]): string[] {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const entry of models) {
    for (const name of [entry.id, ...(entry.aliases ?? [])]) {
      const owner = seen.get(name.toLowerCase());
      if (owner !== undefined)
        problems.push(`model ${entry.id}: name "${name}" is already used by model ${owner}`);
      else seen.set(name.toLowerCase(), entry.id);
    }
  }
  return problems;
}

/**
 * Remote models must be priced (>0) unless explicitly local, so no call is silently recorded at
 * cost 0. An embeddings-only model produces no output tokens: only its input price counts.
 */
function priceProblems(entry: RemoteEntry): string[] {
  if (entry.local === true) return [];
  const embeddingsOnly = entry.capabilities.length === 1 && entry.capabilities[0] === 'embeddings';
  const priced = embeddingsOnly
    ? (['inputPricePerMillion'] as const)
    : (['inputPricePerMillion', 'outputPricePerMillion'] as const);
  const missing = priced.filter((field) => !(Number(entry[field]) > 0));
  if (missing.length === 0) return [];
  return [
    `model ${entry.id}: ${missing.join(' and ')} must be > 0 for a non-local model (set the prices, or "local": true for a self-hosted model)`,
  ];
}

function entryProblems(entry: RemoteEntry, known: Set<string>, env: NodeJS.ProcessEnv): string[] {
  const problems = [...priceProblems(entry), ...deploymentProblems(entry)];
  if (!entry.baseUrl && !entry.deployments)
    problems.push(`model ${entry.id}: baseUrl is required (or deployments, each with one)`);
  for (const deployment of entry.deployments ?? [])
    if (deployment.apiKeyEnv && !env[deployment.apiKeyEnv])
      problems.push(
        `model ${entry.id}: environment variable ${deployment.apiKeyEnv} (a deployment's apiKeyEnv) is not set`,
      );
  if (entry.maxOutputTokens > entry.contextWindow)
    problems.push(`model ${entry.id}: maxOutputTokens exceeds contextWindow`);
  if (entry.provider === 'azure-openai' && !entry.apiVersion)
    problems.push(`model ${entry.id}: azure-openai needs apiVersion`);
  if (entry.apiKeyEnv && !env[entry.apiKeyEnv])
    problems.push(
      `model ${entry.id}: environment variable ${entry.apiKeyEnv} (apiKeyEnv) is not set`,
    );
  for (const target of entry.fallback ?? []) {
    if (!known.has(target.toLowerCase()))
      problems.push(`model ${entry.id}: fallback "${target}" is not a known model id or alias`);
    else if (
      [entry.id, ...(entry.aliases ?? [])].some((own) => own.toLowerCase() === target.toLowerCase())
    ) {
      problems.push(`model ${entry.id}: fallback "${target}" is the model itself`);
    }
  }
  return problems;
}

/**
 * Schema first, then the catalog fills remote entries, then the rules a schema cannot express
 * (names, prices, limits, references, keys).
 */
export function validateRegistry(
  raw: unknown,
  origin: string,
  env: NodeJS.ProcessEnv,
  catalog: ModelCatalog = bundledCatalog(),
): RegistryFile {
  if (!validateSchema(raw))
    throw new RegistryConfigError(origin, (validateSchema.errors ?? []).map(describe));
  const problems: string[] = [];
  const models: ModelEntry[] = raw.models.map((input) => {
    if (!isRemote(input)) return input;
    const completed = withCatalog(input, catalog);
    problems.push(...completed.problems);
    return completed.entry;
  });
  const known = new Set(
    models.flatMap((m) => [m.id, ...(m.aliases ?? [])].map((n) => n.toLowerCase())),
  );
  problems.push(
    ...nameProblems(models),
    ...models.filter(isRemote).flatMap((entry) => entryProblems(entry, known, env)),
  );
  if (raw.defaultModel !== undefined && !known.has(raw.defaultModel.toLowerCase())) {
    problems.push(`/defaultModel: "${raw.defaultModel}" is not a known model id or alias`);
  }
  if (problems.length > 0) throw new RegistryConfigError(origin, problems);
  return { ...raw, models };
}

/** Reads and validates the registry; throws RegistryConfigError listing every problem. */
export function loadRegistry(
  source: RegistrySource,
  env: NodeJS.ProcessEnv,
): RegistryFile & { origin: string } {
  const { origin, text } = readSource(source);
  let raw: unknown;
  try {
    raw = JSON.parse(stripJsonComments(text));
  } catch (error) {
    throw new RegistryConfigError(origin, [`not valid JSON: ${(error as Error).message}`]);
  }
  return { ...validateRegistry(raw, origin, env), origin };
}

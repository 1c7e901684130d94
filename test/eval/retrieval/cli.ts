import { DEFAULT_EMBEDDING_MODEL, missingFiles, modelsDirectory } from '@switchyard/content';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { silentLogger } from '@switchyard/shared/testing';
import { E2E_ENV } from '../../support/mesh';
import { BUSINESSES, type Question } from './businesses';

/**
 * npm run eval:retrieval [-- --json]
 *
 * Knowledge retrieval on the question set of businesses.ts, through the gateway's search API
 * (the retrieval the assistants use), once with BM25 alone and once with the default embedding
 * model fused with BM25 (reciprocal rank fusion). Prints recall@5 and MRR (of the first 10
 * results) per setting, overall and per question language. Needs the embedding model of
 * `npm run model:fetch`.
 */

const LIMIT = 10;
const RECALL_AT = 5;

interface Setting {
  name: string;
  env: NodeJS.ProcessEnv;
}

interface Outcome {
  question: Question;
  business: string;
  /** 1-based rank of the answer; 0 when not among the first LIMIT. */
  rank: number;
  top: string;
}

const BM25_ONLY = JSON.stringify({
  defaultModel: 'builtin',
  models: [{ id: 'builtin', provider: 'builtin' }],
});

async function call(mesh: EmbeddedMesh, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${mesh.gatewayUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `X-API-Key ${mesh.apiKey}`,
      'content-type': path.endsWith('/import') ? 'application/x-ndjson' : 'application/json',
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** The environment without a model registry of its own: the bundled one, as `npm start` runs it. */
function bundledRegistry(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const {
    MODEL_REGISTRY_JSON: _json,
    MODEL_REGISTRY_PATH: _path,
    LOCAL_MODEL_PATH: _local,
    DEFAULT_MODEL: _default,
    ...rest
  } = env;
  return rest;
}

async function run(setting: Setting): Promise<Outcome[]> {
  const mesh = await startEmbeddedMesh(
    { ...bundledRegistry(E2E_ENV), DEV_API_KEY: 'sk_eval_retrieval_0123456789ab', ...setting.env },
    silentLogger(),
  );
  try {
    const outcomes: Outcome[] = [];
    for (const business of BUSINESSES) {
      const base = '/api/v2/knowledge/collections';
      await call(mesh, base, { name: business.collection, kind: 'articles' });
      await call(
        mesh,
        `${base}/${business.collection}/import`,
        business.articles
          .map(({ id, title, body }) => JSON.stringify({ id, title, body }))
          .join('\n'),
      );
      for (const question of business.questions) {
        const found = (await call(mesh, `${base}/${business.collection}/search`, {
          query: question.text,
          limit: LIMIT,
        })) as { results: Array<{ id: string }> };
        const ids = found.results.map((r) => r.id);
        outcomes.push({
          question,
          business: business.collection,
          rank: ids.indexOf(question.answer) + 1,
          top: ids[0] ?? '-',
        });
      }
    }
    return outcomes;
  } finally {
    await mesh.stop();
  }
}

function figures(outcomes: Outcome[]): { recall: number; mrr: number; n: number } {
  const n = outcomes.length;
  const recall = outcomes.filter((o) => o.rank > 0 && o.rank <= RECALL_AT).length / n;
  const mrr = outcomes.reduce((sum, o) => sum + (o.rank > 0 ? 1 / o.rank : 0), 0) / n;
  return { recall, mrr, n };
}

const fmt = (x: number) => x.toFixed(3);

async function main(): Promise<void> {
  const missing = await missingFiles([DEFAULT_EMBEDDING_MODEL], modelsDirectory(process.env));
  if (missing.length > 0)
    throw new Error('the embedding model is not in the model cache: run npm run model:fetch');
  const settings: Setting[] = [
    { name: 'BM25 alone', env: { MODEL_REGISTRY_JSON: BM25_ONLY } },
    {
      name: `BM25 + ${DEFAULT_EMBEDDING_MODEL.id} (RRF)`,
      // The bundled registry, as `npm start` runs it: the fetched embedding model is in it.
      env: {},
    },
  ];
  const questions = BUSINESSES.reduce((sum, b) => sum + b.questions.length, 0);
  const results: Array<{ setting: string; outcomes: Outcome[] }> = [];
  for (const setting of settings)
    results.push({ setting: setting.name, outcomes: await run(setting) });
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const lines = [
    `Knowledge retrieval: ${questions} questions on ${BUSINESSES.length} businesses' documents (test/eval/retrieval/businesses.ts)`,
    `${'setting'.padEnd(36)} ${'recall@5'.padStart(8)} ${'MRR'.padStart(6)}   ${'EN r@5'.padStart(6)} ${'EN MRR'.padStart(6)}   ${'DE r@5'.padStart(6)} ${'DE MRR'.padStart(6)}`,
  ];
  for (const { setting, outcomes } of results) {
    const all = figures(outcomes);
    const en = figures(outcomes.filter((o) => o.question.language === 'en'));
    const de = figures(outcomes.filter((o) => o.question.language === 'de'));
    lines.push(
      `${setting.padEnd(36)} ${fmt(all.recall).padStart(8)} ${fmt(all.mrr).padStart(6)}   ${fmt(en.recall).padStart(6)} ${fmt(en.mrr).padStart(6)}   ${fmt(de.recall).padStart(6)} ${fmt(de.mrr).padStart(6)}`,
    );
  }
  if (process.argv.includes('--misses')) {
    for (const { setting, outcomes } of results) {
      lines.push('', `${setting}: answers not ranked first`);
      for (const o of outcomes.filter((x) => x.rank !== 1))
        lines.push(
          `  [${o.question.language}] ${o.question.text} -> ${o.question.answer} at ${o.rank || '-'} (first: ${o.top})`,
        );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`eval:retrieval: ${(error as Error).message}\n`);
    process.exit(1);
  },
);

import { DEFAULT_EMBEDDING_MODEL, missingFiles, modelsDirectory } from '@switchyard/content';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { FakeLlmServer, silentLogger } from '@switchyard/shared/testing';
import { E2E_ENV } from '../../support/mesh';
import { DEVELOPMENT, HELD_OUT, type CachePair } from './pairs';

/**
 * npm run eval:semantic-cache [-- --thresholds 0.8,0.85,0.9,0.95]
 *
 * The semantic response cache through the gateway, with the local embedding model: per threshold
 * and set of pairs (pairs.ts), an organization of its own whose key caches with that
 * semanticThreshold asks every stored question (misses, answers stored), then every later
 * question. Prints the hit rate on questions that mean the same (with the right answer) and the
 * false hits on different ones (any hit there, or a hit with another question's answer). The
 * upstream is a stand-in model whose answer names the question it answered. Needs the embedding
 * model of `npm run model:fetch`.
 */

const ADMIN_TOKEN = 'adm_eval_semantic_cache_0123456789';

interface Outcome {
  pair: CachePair;
  hit: boolean;
  similarity?: number;
  /** The answer was the stored question's (not another's). */
  right: boolean;
}

async function post(mesh: EmbeddedMesh, path: string, authorization: string, body: unknown) {
  const response = await fetch(`${mesh.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return { body: JSON.parse(text), headers: response.headers };
}

async function keyWithThreshold(mesh: EmbeddedMesh, org: string, threshold: number) {
  const admin = `Bearer ${ADMIN_TOKEN}`;
  await post(mesh, '/api/v2/admin/organizations', admin, {
    id: org,
    name: org,
    monthlyTokenQuota: 100_000_000,
  });
  const issued = await post(mesh, `/api/v2/admin/organizations/${org}/keys`, admin, {
    name: 'eval',
    cache: { maxAgeSeconds: 3600, semanticThreshold: threshold },
  });
  return `Bearer ${issued.body.key as string}`;
}

async function ask(mesh: EmbeddedMesh, key: string, question: string) {
  return post(mesh, '/v1/chat/completions', key, {
    model: 'fake-gpt',
    messages: [{ role: 'user', content: question }],
    max_tokens: 50,
  });
}

async function run(mesh: EmbeddedMesh, pairs: CachePair[], org: string, threshold: number) {
  const key = await keyWithThreshold(mesh, org, threshold);
  for (const stored of new Set(pairs.map((p) => p.stored))) await ask(mesh, key, stored);
  // Answers are stored after they are sent: a moment for the last writes.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const outcomes: Outcome[] = [];
  for (const pair of pairs) {
    const { body, headers } = await ask(mesh, key, pair.asked);
    const similarity = headers.get('x-switchyard-cache-similarity');
    const content = String(body.choices[0].message.content);
    outcomes.push({
      pair,
      hit: headers.get('x-switchyard-cache') === 'hit',
      similarity: similarity === null ? undefined : Number(similarity),
      right: content.includes(pair.stored),
    });
  }
  return outcomes;
}

const share = (part: number, whole: number) =>
  `${part}/${whole} (${((part / whole) * 100).toFixed(0)}%)`.padEnd(14);

function row(threshold: number, set: string, outcomes: Outcome[]): string {
  const sameOnes = outcomes.filter((o) => o.pair.same);
  const otherOnes = outcomes.filter((o) => !o.pair.same);
  const hits = sameOnes.filter((o) => o.hit && o.right).length;
  const falseHits =
    otherOnes.filter((o) => o.hit).length + sameOnes.filter((o) => o.hit && !o.right).length;
  return `${threshold.toFixed(2).padEnd(10)} ${set.padEnd(12)} ${share(hits, sameOnes.length)}   ${share(falseHits, outcomes.length)}`;
}

async function main(): Promise<void> {
  const missing = await missingFiles([DEFAULT_EMBEDDING_MODEL], modelsDirectory(process.env));
  if (missing.length > 0)
    throw new Error('the embedding model is not in the model cache: run npm run model:fetch');
  const thresholdArg = process.argv.indexOf('--thresholds');
  const thresholds = (thresholdArg > 0 ? process.argv[thresholdArg + 1]! : '0.75,0.8,0.85,0.9,0.95')
    .split(',')
    .map(Number);
  const fake = new FakeLlmServer('unused', ['up-gpt']);
  const [modelFile, tokenizerFile] = DEFAULT_EMBEDDING_MODEL.files.map((f) => f.file);
  const registry = {
    defaultModel: 'fake-gpt',
    models: [
      {
        id: 'fake-gpt',
        provider: 'openai-compatible',
        baseUrl: await fake.start(),
        upstreamModel: 'up-gpt',
        contextWindow: 16000,
        maxOutputTokens: 1000,
        capabilities: ['chat'],
        local: true,
      },
      {
        id: DEFAULT_EMBEDDING_MODEL.id,
        provider: 'onnx',
        modelPath: modelFile,
        tokenizerPath: tokenizerFile,
      },
    ],
  };
  const mesh = await startEmbeddedMesh(
    { ...E2E_ENV, ADMIN_TOKEN, MODEL_REGISTRY_JSON: JSON.stringify(registry), DEFAULT_MODEL: '' },
    silentLogger(),
  );
  const lines = [
    `Semantic response cache with ${DEFAULT_EMBEDDING_MODEL.id}: ${DEVELOPMENT.length} development and ${HELD_OUT.length} held-out pairs (test/eval/semantic-cache/pairs.ts)`,
    `${'threshold'.padEnd(10)} ${'set'.padEnd(12)} ${'hits (same)'.padEnd(14)}   false hits (of all asked)`,
  ];
  try {
    for (const threshold of thresholds) {
      const tag = `${threshold}`.replace('.', '');
      const dev = await run(mesh, DEVELOPMENT, `eval-dev-${tag}`, threshold);
      const held = await run(mesh, HELD_OUT, `eval-held-${tag}`, threshold);
      lines.push(row(threshold, 'development', dev), row(threshold, 'held-out', held));
    }
  } finally {
    await mesh.stop();
    await fake.close();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

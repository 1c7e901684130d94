import { expect } from 'chai';
import OpenAI from 'openai';
import { FakeLlmServer, silentLogger } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { E2E_ENV } from '../support/mesh';

/**
 * One model id spread over two upstreams (the registry's `deployments`), called through the
 * gateway with the official SDK: calls are shared by weight, a failing upstream is cooled down and
 * the call moves on to the other, and a call fails only when every deployment failed.
 */

const UPSTREAM_MODEL = 'up-pooled';

function registryFor(first: string, second: string, cooldownSeconds: number) {
  return {
    defaultModel: 'builtin',
    models: [
      { id: 'builtin', provider: 'builtin' },
      {
        id: 'pooled',
        provider: 'openai-compatible',
        apiKeyEnv: 'FAKE_UPSTREAM_KEY',
        upstreamModel: UPSTREAM_MODEL,
        contextWindow: 16000,
        maxOutputTokens: 1000,
        capabilities: ['chat', 'generate'],
        inputPricePerMillion: 1,
        outputPricePerMillion: 2,
        routing: 'weighted',
        cooldownSeconds,
        deployments: [
          { id: 'first', baseUrl: first, weight: 3 },
          { id: 'second', baseUrl: second, weight: 1 },
        ],
      },
    ],
  };
}

describe('e2e: a model over several deployments, balanced by weight and health', () => {
  let first: FakeLlmServer;
  let second: FakeLlmServer;
  let urls: [string, string];

  before(async () => {
    first = new FakeLlmServer('sk-upstream');
    second = new FakeLlmServer('sk-upstream');
    urls = [await first.start(), await second.start()];
  });

  after(async () => {
    await first?.close();
    await second?.close();
  });

  async function meshWith(cooldownSeconds: number): Promise<{ mesh: EmbeddedMesh; sdk: OpenAI }> {
    first.reset();
    second.reset();
    const [a, b] = urls;
    const mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_API_KEY: 'sk_deployments_0123456789abcdef',
        FAKE_UPSTREAM_KEY: 'sk-upstream',
        MODEL_REGISTRY_JSON: JSON.stringify(registryFor(a, b, cooldownSeconds)),
      },
      silentLogger(),
    );
    const sdk = new OpenAI({
      baseURL: `${mesh.gatewayUrl}/v1`,
      apiKey: mesh.apiKey,
      maxRetries: 0,
    });
    return { mesh, sdk };
  }

  const ask = (sdk: OpenAI, n: number) =>
    sdk.chat.completions.create({
      model: 'pooled',
      messages: [{ role: 'user', content: `question ${n}` }],
    });

  it('shares calls by weight (3:1) while both deployments are healthy', async function () {
    this.timeout(60_000);
    const { mesh, sdk } = await meshWith(30);
    try {
      for (let n = 0; n < 200; n++) {
        const answer = await ask(sdk, n);
        expect(answer.choices[0]!.message.content).to.be.a('string').and.not.equal('');
      }
      const toFirst = first.requestsFor(UPSTREAM_MODEL).length;
      const toSecond = second.requestsFor(UPSTREAM_MODEL).length;
      expect(toFirst + toSecond).to.equal(200);
      // Binomial(200, 0.75): mean 150, standard deviation 6.1; these bounds are 6 deviations out.
      expect(toFirst).to.be.within(113, 187);
    } finally {
      await mesh.stop();
    }
  });

  it('cools a failing deployment down and answers every call from the other', async function () {
    this.timeout(60_000);
    const { mesh, sdk } = await meshWith(30);
    try {
      // The first deployment answers 500 to everything it is asked.
      first.script(
        UPSTREAM_MODEL,
        ...Array.from({ length: 50 }, () => ({ kind: 'status' as const, status: 500 })),
      );
      for (let n = 0; n < 20; n++) {
        const answer = await ask(sdk, n);
        expect(answer.choices[0]!.message.content).to.be.a('string').and.not.equal('');
      }
      // Tried once at most (then cooling down for 30 s), never again within the 20 calls.
      expect(first.requestsFor(UPSTREAM_MODEL).length).to.be.at.most(1);
      expect(second.requestsFor(UPSTREAM_MODEL).length).to.equal(20);
    } finally {
      await mesh.stop();
    }
  });

  it('fails a call only when every deployment failed, with the upstream error', async function () {
    this.timeout(60_000);
    const { mesh, sdk } = await meshWith(0);
    try {
      const failing = Array.from({ length: 5 }, () => ({ kind: 'status' as const, status: 503 }));
      first.script(UPSTREAM_MODEL, ...failing);
      second.script(UPSTREAM_MODEL, ...failing);
      const error = await ask(sdk, 1).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).to.be.at.least(500);
      // One attempt on each deployment, no retries beyond them.
      expect(first.requestsFor(UPSTREAM_MODEL).length).to.equal(1);
      expect(second.requestsFor(UPSTREAM_MODEL).length).to.equal(1);
      // With no cool-down both are tried again at once, and answer once the upstreams recover.
      first.reset();
      second.reset();
      const answer = await ask(sdk, 2);
      expect(answer.choices[0]!.message.content).to.be.a('string').and.not.equal('');
    } finally {
      await mesh.stop();
    }
  });
});

import { expect } from 'chai';
import OpenAI from 'openai';
import { FakeLlmServer, silentLogger } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi, type ApiOptions } from '../support/http';
import { E2E_ENV } from '../support/mesh';

const CHAT = ['generate', 'summarize', 'reformat', 'translate', 'chat'];
const GENERATE = '/api/v2/ai/content/generate';

/** builtin (the default, alias "local") and two models at a fake OpenAI-compatible provider. */
function registryFor(baseUrl: string) {
  const remote = {
    provider: 'openai-compatible',
    baseUrl,
    contextWindow: 16000,
    maxOutputTokens: 1000,
    capabilities: CHAT,
    local: true,
    maxRetries: 0,
  };
  return {
    defaultModel: 'builtin',
    models: [
      { id: 'builtin', provider: 'builtin', aliases: ['local'] },
      { ...remote, id: 'fake-gpt', aliases: ['gpt-fast'], upstreamModel: 'up-gpt' },
      { ...remote, id: 'fake-mini', upstreamModel: 'up-mini' },
    ],
  };
}

/**
 * A key's scopes through the gateway: `models` on every route that names a model (and on the
 * default a request gets), `routes` on every path, `expiresAt` by the gateway's clock, changed
 * later through PATCH, with the official OpenAI SDK on /v1.
 */
describe('e2e: API keys limited to models, routes and a lifetime', function () {
  this.timeout(60_000);
  let fake: FakeLlmServer;
  let mesh: EmbeddedMesh;
  let now = new Date('2026-11-20T10:00:00Z');

  const api = (path: string, options?: ApiOptions) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, path, options);

  async function issue(scope: Record<string, unknown>): Promise<{ key: string; keyId: string }> {
    const issued = await api('/api/v2/keys', { body: { name: 'app', ...scope } });
    expect(issued.status, issued.text).to.equal(201);
    return { key: issued.body.key, keyId: issued.body.keyId };
  }

  const openAi = (key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${mesh.gatewayUrl}/v1`, maxRetries: 0 });

  before(async () => {
    fake = new FakeLlmServer('unused', ['up-gpt', 'up-mini']);
    const baseUrl = await fake.start();
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_API_KEY: 'sk_scopes_0123456789abcdefghijklm',
        MODEL_REGISTRY_JSON: JSON.stringify(registryFor(baseUrl)),
        DEFAULT_MODEL: '',
      },
      silentLogger(),
      { now: () => now },
    );
  });

  after(async () => {
    await mesh?.stop();
    await fake?.close();
  });

  it('refuses a key naming a model the registry does not know, naming it', async () => {
    const refused = await api('/api/v2/keys', { body: { models: ['fake-gpt', 'gpt-9'] } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.details).to.deep.equal([
      { field: '/models/1', reason: 'unknown model gpt-9' },
    ]);
  });

  it('models: allows the listed ids and aliases, refuses other models and a default outside them (403 model_not_allowed)', async () => {
    const { key } = await issue({ models: ['gpt-fast'] });
    const client = openAi(key);
    const answer = await client.chat.completions.create({
      model: 'fake-gpt',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(answer.choices[0]!.message.content).to.contain('Answer from up-gpt');
    const streamed = await client.chat.completions.create({
      model: 'gpt-fast',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of streamed) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).to.contain('Answer from up-gpt');

    const error = await client.chat.completions
      .create({ model: 'fake-mini', messages: [{ role: 'user', content: 'hello' }] })
      .then(
        () => undefined,
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    expect(error).to.be.instanceOf(OpenAI.PermissionDeniedError);
    expect(error!.code).to.equal('model_not_allowed');
    expect(fake.requestsFor('up-mini')).to.have.length(0);

    // The default model (builtin) is not among them either; naming an allowed one works.
    const byDefault = await callApi(mesh.gatewayUrl, key, GENERATE, { body: { prompt: 'Shoes' } });
    expect(byDefault.status).to.equal(403);
    expect(byDefault.body.error.code).to.equal('model_not_allowed');
    const named = await callApi(mesh.gatewayUrl, key, GENERATE, {
      body: { prompt: 'Shoes', model: 'fake-gpt' },
    });
    expect(named.status, named.text).to.equal(200);
    const transform = await callApi(mesh.gatewayUrl, key, '/api/v2/ai/content/transform', {
      body: { action: 'summarize', text: 'One. Two. Three.', model: 'fake-mini' },
    });
    expect(transform.body.error.code).to.equal('model_not_allowed');
    // The assistants answer on builtin here: refused too, before anything is stored.
    const chat = await callApi(mesh.gatewayUrl, key, '/api/v2/ai/assistants/chat', {
      body: { user_id: 'u1', session_id: 's1', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(chat.status).to.equal(403);
    expect(chat.body.error.code).to.equal('model_not_allowed');

    // The lists show what the key may use.
    const listed = await client.models.list();
    expect(listed.data.map((m) => m.id)).to.deep.equal(['fake-gpt']);
    const models = await callApi(mesh.gatewayUrl, key, '/api/v2/models');
    expect(models.body.models.map((m: { id: string }) => m.id)).to.deep.equal(['fake-gpt']);
  });

  it('models: an alias of the default allows it; the assistants answer when their model is listed', async () => {
    const { key } = await issue({ models: ['local'] });
    const generated = await callApi(mesh.gatewayUrl, key, GENERATE, { body: { prompt: 'Tent' } });
    expect(generated.status, generated.text).to.equal(200);
    const assistant = await issue({ models: ['builtin'] });
    const chat = await callApi(mesh.gatewayUrl, assistant.key, '/api/v2/ai/assistants/chat', {
      body: { user_id: 'u1', session_id: 's2', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(chat.status, chat.text).to.equal(200);
  });

  it('routes: only the listed paths (an alias path counts as its route), others 403 forbidden', async () => {
    const { key } = await issue({ routes: ['/v1/*', '/api/v2/ai/content/generate'] });
    const models = await openAi(key).models.list();
    expect(models.data.length).to.be.greaterThan(0);
    const generated = await callApi(mesh.gatewayUrl, key, GENERATE, { body: { prompt: 'Tent' } });
    expect(generated.status).to.equal(200);
    const alias = await callApi(mesh.gatewayUrl, key, '/api/ai/content/generate', {
      body: { prompt: 'Tent' },
    });
    expect(alias.status).to.equal(200);
    const usage = await callApi(mesh.gatewayUrl, key, '/api/v2/usage');
    expect(usage.status).to.equal(403);
    expect(usage.body.error.code).to.equal('forbidden');
    const keys = await callApi(mesh.gatewayUrl, key, '/api/v2/keys');
    expect(keys.status).to.equal(403);
  });

  it('expiresAt: works until then, 401 key_expired after (by the gateway clock), on /v1 too', async () => {
    const { key } = await issue({ expiresAt: '2026-11-20T11:00:00Z' });
    expect((await callApi(mesh.gatewayUrl, key, '/api/v2/models')).status).to.equal(200);
    now = new Date('2026-11-20T11:00:00Z');
    try {
      const expired = await callApi(mesh.gatewayUrl, key, '/api/v2/models');
      expect(expired.status).to.equal(401);
      expect(expired.body.error.code).to.equal('key_expired');
      const error = await openAi(key)
        .models.list()
        .then(
          () => undefined,
          (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
        );
      expect(error).to.be.instanceOf(OpenAI.AuthenticationError);
      expect(error!.code).to.equal('key_expired');
    } finally {
      now = new Date('2026-11-20T10:00:00Z');
    }
  });

  it('changes scopes later (PATCH, null removes one); restricted keys cannot manage keys but may revoke themselves', async () => {
    const { key, keyId } = await issue({ models: ['fake-mini'] });
    const own = (path: string, options?: ApiOptions) =>
      callApi(mesh.gatewayUrl, key, path, options);
    expect((await own(GENERATE, { body: { prompt: 'Tent', model: 'fake-gpt' } })).status).to.equal(
      403,
    );
    const changed = await api(`/api/v2/keys/${keyId}`, {
      method: 'PATCH',
      body: { models: ['fake-gpt', 'fake-mini'], routes: ['/api/v2/ai/*', '/api/v2/keys*'] },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.include({ keyId, name: 'app' });
    expect(changed.body.models).to.deep.equal(['fake-gpt', 'fake-mini']);
    expect((await own(GENERATE, { body: { prompt: 'Tent', model: 'fake-gpt' } })).status).to.equal(
      200,
    );
    expect((await own('/api/v2/models')).status).to.equal(403);

    // A restricted key may not widen anything: no issuing or changing keys.
    const issued = await own('/api/v2/keys', { body: { name: 'wider' } });
    expect(issued.status).to.equal(403);
    const widened = await own(`/api/v2/keys/${keyId}`, { method: 'PATCH', body: { models: null } });
    expect(widened.status).to.equal(403);

    const cleared = await api(`/api/v2/keys/${keyId}`, {
      method: 'PATCH',
      body: { models: null, routes: null },
    });
    expect(cleared.body).to.not.have.any.keys('models', 'routes');
    expect((await own(GENERATE, { body: { prompt: 'Tent' } })).status).to.equal(200);

    await api(`/api/v2/keys/${keyId}`, { method: 'PATCH', body: { routes: ['/api/v2/keys/*'] } });
    const revoked = await own(`/api/v2/keys/${keyId}/revoke`, { body: {} });
    expect(revoked.status, revoked.text).to.equal(200);
    expect((await own('/api/v2/keys/x/revoke', { body: {} })).status).to.equal(401);
  });

  it('the admin API issues and changes keys with scopes too', async () => {
    const admin = { authorization: `Bearer ${mesh.adminToken}` };
    const issued = await api('/api/v2/admin/organizations/dev/keys', {
      ...admin,
      body: { name: 'ops', routes: ['/api/v2/models'], expiresAt: '2027-01-01T00:00:00Z' },
    });
    expect(issued.status, issued.text).to.equal(201);
    expect(issued.body).to.include({ expiresAt: '2027-01-01T00:00:00Z' });
    const changed = await api(`/api/v2/admin/keys/${issued.body.keyId}`, {
      ...admin,
      method: 'PATCH',
      body: { expiresAt: null, models: ['fake-gpt'] },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.not.have.property('expiresAt');
    const listed = await callApi(mesh.gatewayUrl, issued.body.key, '/api/v2/models');
    expect(listed.body.models.map((m: { id: string }) => m.id)).to.deep.equal(['fake-gpt']);
  });
});

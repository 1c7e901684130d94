import { expect } from 'chai';
import OpenAI from 'openai';
import { FakeLlmServer, silentLogger, waitFor } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi, type ApiOptions } from '../support/http';
import { E2E_ENV } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';

const GENERATE = '/api/v2/ai/content/generate';
const CHAT = '/api/v2/ai/assistants/chat';

/**
 * Token budgets of a key and of each end user behind it, through the gateway, by the gateway's
 * clock: refused with 429 budget_exceeded (Retry-After and resetAt at the period's end) on the
 * native and /v1 routes, reset when the period ends, never overshot by concurrent calls.
 */
describe('e2e: key and end-user budgets', function () {
  this.timeout(120_000);
  let mesh: EmbeddedMesh;
  let fake: FakeLlmServer;
  let now = new Date('2026-11-20T10:00:00Z'); // a Friday

  const api = (path: string, options?: ApiOptions) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, path, options);

  async function issue(scope: Record<string, unknown>): Promise<string> {
    const issued = await api('/api/v2/keys', { body: { name: 'app', ...scope } });
    expect(issued.status, issued.text).to.equal(201);
    return issued.body.key;
  }

  const generate = (key: string) =>
    callApi(mesh.gatewayUrl, key, GENERATE, {
      body: { prompt: 'A tent for two', max_length: 50 },
    });

  /** Calls until the first refusal; the answers before it and the refusal. */
  async function untilRefused(call: () => ReturnType<typeof generate>) {
    const answered = [];
    for (let i = 0; i < 200; i++) {
      const response = await call();
      if (response.status !== 200) return { answered, refused: response };
      answered.push(response);
    }
    throw new Error('never refused');
  }

  before(async () => {
    fake = new FakeLlmServer('unused', ['up-gpt']);
    const remote = {
      id: 'fake-gpt',
      provider: 'openai-compatible',
      baseUrl: await fake.start(),
      upstreamModel: 'up-gpt',
      contextWindow: 16000,
      maxOutputTokens: 1000,
      capabilities: ['generate', 'chat'],
      local: true,
      maxRetries: 0,
    };
    // Priced: 0.001 per input token, 0.002 per output token.
    const priced = {
      ...remote,
      id: 'priced-gpt',
      local: false,
      inputPricePerMillion: 1000,
      outputPricePerMillion: 2000,
    };
    const registry = {
      defaultModel: 'builtin',
      models: [{ id: 'builtin', provider: 'builtin' }, remote, priced],
    };
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_API_KEY: 'sk_budgets_0123456789abcdefghijk',
        MODEL_REGISTRY_JSON: JSON.stringify(registry),
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

  afterEach(() => {
    now = new Date('2026-11-20T10:00:00Z');
    fake.reset();
  });

  it('refuses a budget without tokens or cost, or with another period (400)', async () => {
    for (const budget of [
      { period: 'day' },
      { tokens: 10, period: 'year' },
      { tokens: 0 },
      { cost: 0, period: 'day' },
      { cost: -1, period: 'week' },
    ]) {
      const refused = await api('/api/v2/keys', { body: { budget } });
      expect(refused.status, JSON.stringify(budget)).to.equal(400);
    }
  });

  it('a daily key budget: 429 budget_exceeded with the reset time, on /v1 too, and a new day resets it', async () => {
    const key = await issue({ budget: { tokens: 1000, period: 'day' } });
    const { answered, refused } = await untilRefused(() => generate(key));
    expect(answered.length).to.be.greaterThan(1);
    const used = answered.reduce(
      (sum, r) => sum + r.body.usage.tokens_input + r.body.usage.tokens_output,
      0,
    );
    expect(used).to.be.at.most(1000);
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('budget_exceeded');
    expect(refused.headers.get('retry-after')).to.equal(String(14 * 3600));
    expect(refused.body.error.details[0]).to.include({
      budget: 1000,
      period: 'day',
      resetAt: '2026-11-21T00:00:00.000Z',
    });

    const error = await new OpenAI({
      apiKey: key,
      baseURL: `${mesh.gatewayUrl}/v1`,
      maxRetries: 0,
    }).chat.completions
      .create({
        model: 'fake-gpt',
        messages: [{ role: 'user', content: 'A tent' }],
        max_tokens: 50,
      })
      .then(
        () => undefined,
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    expect(error).to.be.instanceOf(OpenAI.RateLimitError);
    expect(error!.code).to.equal('budget_exceeded');

    now = new Date('2026-11-20T23:59:59Z');
    expect((await generate(key)).status).to.equal(429);
    now = new Date('2026-11-21T00:00:00Z');
    expect((await generate(key)).status).to.equal(200);
  });

  it('a weekly budget resets on Monday (UTC); a monthly one on the 1st; PATCH null removes a budget', async () => {
    const weekly = await issue({ budget: { tokens: 300, period: 'week' } });
    const { refused } = await untilRefused(() => generate(weekly));
    expect(refused.body.error.details[0].resetAt).to.equal('2026-11-23T00:00:00.000Z');
    now = new Date('2026-11-22T23:00:00Z');
    expect((await generate(weekly)).status).to.equal(429);
    now = new Date('2026-11-23T00:00:00Z');
    expect((await generate(weekly)).status).to.equal(200);

    now = new Date('2026-11-20T10:00:00Z');
    const issued = await api('/api/v2/keys', {
      body: { budget: { tokens: 300, period: 'month' } },
    });
    const monthly = issued.body.key as string;
    expect((await untilRefused(() => generate(monthly))).refused.body.error.details[0]).to.include({
      resetAt: '2026-12-01T00:00:00.000Z',
    });
    const changed = await api(`/api/v2/keys/${issued.body.keyId}`, {
      method: 'PATCH',
      body: { budget: null },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.not.have.property('budget');
    expect((await generate(monthly)).status).to.equal(200);
  });

  it('concurrent calls at the edge of a budget never pass it together', async () => {
    const key = await issue({ budget: { tokens: 700, period: 'day' } });
    const answers = await Promise.all(Array.from({ length: 24 }, () => generate(key)));
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(ok.length + refused.length).to.equal(24);
    expect(ok).to.not.be.empty;
    expect(refused).to.not.be.empty;
    for (const r of refused) expect(r.body.error.code).to.equal('budget_exceeded');
    const used = ok.reduce(
      (sum, r) => sum + r.body.usage.tokens_input + r.body.usage.tokens_output,
      0,
    );
    expect(used).to.be.at.most(700);
  });

  it('an end-user budget applies to each user_id (assistants) and user (/v1) separately', async () => {
    const key = await issue({ endUserBudget: { tokens: 400, period: 'day' } });
    const chat = (user: string, session: string) =>
      callApi(mesh.gatewayUrl, key, CHAT, {
        body: { user_id: user, session_id: session, messages: [{ role: 'user', content: 'Hi' }] },
      });
    let i = 0;
    const { answered, refused } = await untilRefused(() => chat('alice', `s${i++}`));
    expect(answered).to.not.be.empty;
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('budget_exceeded');
    expect(refused.body.error.details[0]).to.include({ reason: 'end-user budget exhausted' });
    expect((await chat('bob', 'b1')).status).to.equal(200);
    // Calls without an end user are not counted against anyone's budget.
    expect((await generate(key)).status).to.equal(200);

    const client = new OpenAI({ apiKey: key, baseURL: `${mesh.gatewayUrl}/v1`, maxRetries: 0 });
    const ask = (user: string) =>
      client.chat.completions.create({
        model: 'fake-gpt',
        messages: [{ role: 'user', content: 'A tent' }],
        max_tokens: 50,
        user,
      });
    let refusal: unknown;
    for (let n = 0; n < 50 && !refusal; n++)
      refusal = await ask('carol').then(
        () => undefined,
        (e) => e,
      );
    expect(refusal).to.be.instanceOf(OpenAI.RateLimitError);
    expect((refusal as InstanceType<typeof OpenAI.APIError>).code).to.equal('budget_exceeded');
    const dave = await ask('dave');
    expect(dave.choices[0]!.message.content).to.be.a('string');

    now = new Date('2026-11-21T00:00:00Z');
    expect((await chat('alice', 'next-day')).status).to.equal(200);
  });

  describe('cost budgets', () => {
    const generatePriced = (key: string, stream = false) =>
      callApi(mesh.gatewayUrl, key, GENERATE, {
        body: { prompt: 'A tent for two', max_length: 50, model: 'priced-gpt', stream },
      });

    beforeEach(() => {
      // Within the estimate (prompt + max_length), as a model keeping to max_length does.
      fake.reported = { prompt_tokens: 5, completion_tokens: 20 };
    });

    it('a daily cost budget refuses with 429 at its cost and resets the next day; a free model does not count', async () => {
      const key = await issue({ budget: { cost: 0.5, period: 'day' } });
      const { answered, refused } = await untilRefused(() => generatePriced(key));
      // 0.005 + 0.04 per call as reported, 0.105 reserved (4 + 50 tokens estimated)
      expect(answered.length).to.be.within(4, 11);
      for (const r of answered) expect(r.body.usage.cost).to.be.closeTo(0.045, 1e-9);
      const spent = answered.reduce((sum, r) => sum + r.body.usage.cost, 0);
      expect(spent).to.be.at.most(0.5);
      expect(refused.status).to.equal(429);
      expect(refused.body.error.code).to.equal('budget_exceeded');
      expect(refused.body.error.message).to.match(/daily cost budget \(0\.5\)/);
      expect(refused.body.error.details[0]).to.include({
        reason: 'key budget exhausted',
        level: 'key',
        limit: 'cost',
        budget: 0.5,
        period: 'day',
        resetAt: '2026-11-21T00:00:00.000Z',
      });
      // The builtin model is free: a cost budget does not hold it back.
      expect((await generate(key)).status).to.equal(200);

      now = new Date('2026-11-21T00:00:01Z');
      expect((await generatePriced(key)).status).to.equal(200);
    });

    it('streams and /v1 settle to their reported cost, a budget with both limits refusing at the cost', async () => {
      const key = await issue({ budget: { tokens: 100_000, cost: 0.3, period: 'week' } });
      const streamed = await generatePriced(key, true);
      expect(streamed.status).to.equal(200);
      const client = new OpenAI({ apiKey: key, baseURL: `${mesh.gatewayUrl}/v1`, maxRetries: 0 });
      const ask = () =>
        client.chat.completions.create({
          model: 'priced-gpt',
          messages: [{ role: 'user', content: 'A tent' }],
          max_tokens: 50,
        });
      let refusal: unknown;
      let answers = 1;
      for (let n = 0; n < 20 && !refusal; n++)
        refusal = await ask().then(
          () => void answers++,
          (e: unknown) => e,
        );
      expect(refusal).to.be.instanceOf(OpenAI.RateLimitError);
      const error = refusal as InstanceType<typeof OpenAI.APIError>;
      expect(error.code).to.equal('budget_exceeded');
      // 0.045 per call settled: five fit within 0.3 (a sixth's 0.102 reservation does not).
      expect(answers).to.equal(5);
      expect(error.message).to.match(/weekly cost budget \(0\.3\).*2026-11-23T00:00:00\.000Z/);
    });

    it('assistant replies are charged the cost the assistant service reports', async () => {
      const key = await issue({ budget: { cost: 1, period: 'day' } });
      const chat = (session: string) =>
        callApi(mesh.gatewayUrl, key, CHAT, {
          body: {
            user_id: 'u1',
            session_id: session,
            model: 'priced-gpt',
            messages: [{ role: 'user', content: 'Hi' }],
          },
        });
      let i = 0;
      const { answered, refused } = await untilRefused(() => chat(`cost-${i++}`));
      expect(answered).to.not.be.empty;
      expect(fake.requestsFor('up-gpt')).to.not.be.empty;
      // One model round per reply (0.045 as reported), 0.512 reserved (256 output tokens): the
      // twelfth reply's reservation would pass the budget.
      expect(fake.requestsFor('up-gpt')).to.have.length(answered.length);
      expect(answered).to.have.length(11);
      expect(refused.body.error.details[0]).to.include({ level: 'key', limit: 'cost' });
    });

    it('concurrent calls at the edge of a cost budget never pass it together', async () => {
      const key = await issue({ budget: { cost: 0.3, period: 'month' } });
      const answers = await Promise.all(Array.from({ length: 16 }, () => generatePriced(key)));
      const ok = answers.filter((r) => r.status === 200);
      const refused = answers.filter((r) => r.status === 429);
      expect(ok.length + refused.length).to.equal(16);
      expect(ok).to.not.be.empty;
      expect(refused).to.not.be.empty;
      for (const r of refused) expect(r.body.error.details[0].limit).to.equal('cost');
      const spent = ok.reduce((sum, r) => sum + r.body.usage.cost, 0);
      expect(spent).to.be.at.most(0.3);
    });

    it("an end user's cost budget behind one key", async () => {
      const key = await issue({ endUserBudget: { cost: 0.15, period: 'day' } });
      const client = new OpenAI({ apiKey: key, baseURL: `${mesh.gatewayUrl}/v1`, maxRetries: 0 });
      const ask = (user: string) =>
        client.chat.completions.create({
          model: 'priced-gpt',
          messages: [{ role: 'user', content: 'A tent' }],
          max_tokens: 50,
          user,
        });
      await ask('erin');
      await ask('erin');
      const refusal = await ask('erin').then(
        () => undefined,
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
      expect(refusal?.code).to.equal('budget_exceeded');
      expect((await ask('frank')).choices).to.have.length(1);
    });
  });

  describe('teams', () => {
    const admin = () => ({ authorization: `Bearer ${mesh.adminToken}`, key: null });

    async function createTeam(body: Record<string, unknown>): Promise<string> {
      const created = await api('/api/v2/teams', { body });
      expect(created.status, created.text).to.equal(201);
      return created.body.teamId;
    }

    it('a team budget counts the calls of all its keys together; 429 names the team', async () => {
      const teamId = await createTeam({
        name: 'search',
        budget: { tokens: 600, period: 'day' },
      });
      const a = await issue({ teamId });
      const b = await issue({ teamId, budget: { tokens: 100_000, period: 'day' } });
      const outsider = await issue({});
      let turn = 0;
      const { answered, refused } = await untilRefused(() => generate(turn++ % 2 ? b : a));
      const used = answered.reduce(
        (sum, r) => sum + r.body.usage.tokens_input + r.body.usage.tokens_output,
        0,
      );
      expect(used).to.be.at.most(600);
      expect(answered.length).to.be.greaterThan(2);
      expect(refused.body.error.code).to.equal('budget_exceeded');
      expect(refused.body.error.message).to.match(/team's daily token budget \(600\)/);
      expect(refused.body.error.details[0]).to.include({
        reason: 'team budget exhausted',
        level: 'team',
        teamId,
        limit: 'tokens',
        resetAt: '2026-11-21T00:00:00.000Z',
      });
      // Both keys of the team are refused; a key outside it is not.
      expect((await generate(a)).status).to.equal(429);
      expect((await generate(b)).status).to.equal(429);
      expect((await generate(outsider)).status).to.equal(200);

      // Raising the team's budget lets its keys call again, at once on this replica.
      const raised = await api(`/api/v2/teams/${teamId}`, {
        method: 'PATCH',
        body: { budget: { tokens: 100_000, cost: 5, period: 'day' } },
      });
      expect(raised.status, raised.text).to.equal(200);
      expect(raised.body.budget).to.deep.equal({ tokens: 100_000, cost: 5, period: 'day' });
      expect((await generate(a)).status).to.equal(200);
    });

    it("a call passes its key's, its team's and its end user's budgets; the first to refuse is named", async () => {
      const teamId = await createTeam({ name: 'mixed', budget: { tokens: 1800, period: 'week' } });
      const key = await issue({
        teamId,
        budget: { tokens: 1000, period: 'day' },
        endUserBudget: { tokens: 300, period: 'day' },
      });
      const client = new OpenAI({ apiKey: key, baseURL: `${mesh.gatewayUrl}/v1`, maxRetries: 0 });
      fake.reported = { prompt_tokens: 5, completion_tokens: 20 };
      const ask = (user: string) =>
        client.chat.completions
          .create({
            model: 'fake-gpt',
            messages: [{ role: 'user', content: 'A tent' }],
            max_tokens: 50,
            user,
          })
          .then(
            () => undefined,
            (e: unknown) => (e as InstanceType<typeof OpenAI.APIError>).message,
          );
      const refusalOf = async (user: string) => {
        for (let n = 0; n < 100; n++) {
          const refused = await ask(user);
          if (refused) return refused;
        }
        throw new Error('never refused');
      };
      expect(await refusalOf('u1')).to.match(/end user's daily token budget/);
      // Other end users go on until the key's own daily budget refuses...
      let n = 2;
      let refusal = await ask(`u${n}`);
      while (refusal?.match(/end user's/)) refusal = await ask(`u${++n}`);
      for (; !refusal; refusal = await ask(`u${++n}`));
      expect(refusal).to.match(/API key's daily token budget \(1000\)/);
      // ...and the next day, until the team's weekly one does.
      now = new Date('2026-11-21T10:00:00Z');
      refusal = undefined;
      for (; !refusal; refusal = await ask(`v${++n}`));
      expect(refusal).to.match(/team's weekly token budget \(1800\)/);
    });

    it('teams are listed, read, renamed, refused for unknown ids, and deleted only without keys', async () => {
      const teamId = await createTeam({ name: 'docs' });
      expect((await api(`/api/v2/teams/${teamId}`)).body).to.include({ name: 'docs', teamId });
      const listed = await api('/api/v2/teams');
      expect(listed.body.teams.map((t: { teamId: string }) => t.teamId)).to.include(teamId);
      const renamed = await api(`/api/v2/teams/${teamId}`, {
        method: 'PATCH',
        body: { name: 'documentation' },
      });
      expect(renamed.body.name).to.equal('documentation');
      expect((await api('/api/v2/teams', { body: { name: '' } })).status).to.equal(400);
      expect((await api('/api/v2/teams/team_nope')).status).to.equal(404);
      const unknown = await api('/api/v2/keys', { body: { teamId: 'team_nope' } });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.details[0]).to.include({ field: '/teamId' });

      const issued = await api('/api/v2/keys', { body: { name: 'docs-app', teamId } });
      expect(issued.body.teamId).to.equal(teamId);
      const busy = await api(`/api/v2/teams/${teamId}`, { method: 'DELETE' });
      expect(busy.status).to.equal(409);
      expect(busy.body.error.details[0]).to.include({ keyId: issued.body.keyId });
      const moved = await api(`/api/v2/keys/${issued.body.keyId}`, {
        method: 'PATCH',
        body: { teamId: null },
      });
      expect(moved.body).to.not.have.property('teamId');
      expect((await api(`/api/v2/teams/${teamId}`, { method: 'DELETE' })).status).to.equal(204);
      expect((await api(`/api/v2/teams/${teamId}`)).status).to.equal(404);
    });

    it("the admin API manages any organization's teams; another organization cannot see them", async () => {
      const created = await callApi(mesh.gatewayUrl, '', '/api/v2/admin/organizations', {
        ...admin(),
        body: { id: 'teams-other', name: 'Other', monthlyTokenQuota: 1_000_000 },
      });
      expect(created.status, created.text).to.equal(201);
      const team = await callApi(
        mesh.gatewayUrl,
        '',
        '/api/v2/admin/organizations/teams-other/teams',
        { ...admin(), body: { name: 'ops', budget: { cost: 3, period: 'month' } } },
      );
      expect(team.status, team.text).to.equal(201);
      expect(team.body).to.include({ organization: 'teams-other', name: 'ops' });
      const key = await callApi(
        mesh.gatewayUrl,
        '',
        '/api/v2/admin/organizations/teams-other/keys',
        { ...admin(), body: { teamId: team.body.teamId } },
      );
      expect(key.status, key.text).to.equal(201);
      expect(key.body.teamId).to.equal(team.body.teamId);
      // The dev organization's key neither sees nor joins it.
      expect((await api(`/api/v2/teams/${team.body.teamId}`)).status).to.equal(404);
      expect((await api('/api/v2/keys', { body: { teamId: team.body.teamId } })).status).to.equal(
        400,
      );
      const listed = await callApi(
        mesh.gatewayUrl,
        '',
        '/api/v2/admin/organizations/teams-other/teams',
        { ...admin(), method: 'GET' },
      );
      expect(listed.body.teams).to.have.length(1);
      const patched = await callApi(
        mesh.gatewayUrl,
        '',
        `/api/v2/admin/organizations/teams-other/teams/${team.body.teamId}`,
        { ...admin(), method: 'PATCH', body: { budget: null } },
      );
      expect(patched.body).to.not.have.property('budget');
    });
  });

  it('usage reports break down by key, team and end user (the admin report too)', async () => {
    const teamId = (await api('/api/v2/teams', { body: { name: 'reporting' } })).body.teamId;
    const inTeam = await api('/api/v2/keys', { body: { name: 'in-team', teamId } });
    const alone = await api('/api/v2/keys', { body: { name: 'alone' } });
    fake.reported = { prompt_tokens: 7, completion_tokens: 11 };
    const ask = (key: string, user?: string) =>
      new OpenAI({
        apiKey: key,
        baseURL: `${mesh.gatewayUrl}/v1`,
        maxRetries: 0,
      }).chat.completions.create({
        model: 'fake-gpt',
        messages: [{ role: 'user', content: 'A tent' }],
        max_tokens: 50,
        ...(user ? { user } : {}),
      });
    await ask(inTeam.body.key, 'reporting-ann');
    await ask(inTeam.body.key, 'reporting-ann');
    await ask(inTeam.body.key, 'reporting-bo');
    await ask(alone.body.key, 'reporting-ann');
    await ask(alone.body.key);
    const find = (rows: Array<Record<string, unknown>>, field: string, value: string) =>
      rows.find((row) => row[field] === value);
    const report = await waitFor(async () => {
      const usage = (await api('/api/v2/usage')).body;
      const keyRow = find(usage.byKey, 'keyId', alone.body.keyId);
      return keyRow?.calls === 2 && find(usage.byEndUser, 'endUser', 'reporting-bo')
        ? usage
        : undefined;
    });
    expect(find(report.byKey, 'keyId', inTeam.body.keyId)).to.include({
      tokensInput: 21,
      tokensOutput: 33,
      calls: 3,
    });
    expect(find(report.byTeam, 'teamId', teamId)).to.include({ tokensInput: 21, calls: 3 });
    expect(find(report.byEndUser, 'endUser', 'reporting-ann')).to.include({
      tokensInput: 21,
      tokensOutput: 33,
      calls: 3,
    });
    expect(find(report.byEndUser, 'endUser', 'reporting-bo')).to.include({ calls: 1 });
    // The key outside any team is in no team's line.
    const teamCalls = report.byTeam.reduce((n: number, row: { calls: number }) => n + row.calls, 0);
    expect(teamCalls).to.be.below(report.calls);

    const asAdmin = await callApi(
      mesh.gatewayUrl,
      '',
      `/api/v2/admin/organizations/${report.organization}/usage`,
      { authorization: `Bearer ${mesh.adminToken}`, key: null },
    );
    expect(asAdmin.status, asAdmin.text).to.equal(200);
    expect(find(asAdmin.body.byTeam, 'teamId', teamId)).to.include({ calls: 3 });
  });

  it('budget_threshold webhooks arrive signed at 80 % and 100 %, once per budget and period', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const hook = await api('/api/webhooks', {
        body: { event: 'budget_threshold', url: receiver.url },
      });
      expect(hook.status, hook.text).to.equal(201);
      const teamId = (
        await api('/api/v2/teams', {
          body: { name: 'notified', budget: { tokens: 100_000, period: 'day' } },
        })
      ).body.teamId;
      const issued = await api('/api/v2/keys', {
        body: { teamId, budget: { tokens: 500, period: 'day' } },
      });
      const key = issued.body.key as string;
      await untilRefused(() => generate(key));
      await generate(key); // refused again: no second notice
      const notices = await waitFor(() =>
        receiver.calls.length >= 2 ? receiver.calls : undefined,
      );
      for (const call of notices) verifyWithStandardWebhooks(hook.body.secret, call);
      const bodies = notices.map((c) => c.body).sort((a, b) => a.share - b.share);
      expect(bodies.map((b) => b.share)).to.deep.equal([0.8, 1]);
      expect(bodies[0]).to.include({
        event: 'budget_threshold',
        level: 'key',
        keyId: issued.body.keyId,
        limit: 'tokens',
        budget: 500,
        period: 'day',
        threshold: 400,
        resetAt: '2026-11-21T00:00:00.000Z',
      });
      expect(bodies[0].used).to.be.at.least(400);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.calls).to.have.length(2);
      // The team's budget is far from its thresholds: nothing for it.
      expect(bodies.every((b) => b.teamId === undefined)).to.equal(true);

      // The next day the budget starts again, and so do its notices.
      now = new Date('2026-11-21T08:00:00Z');
      await untilRefused(() => generate(key));
      await waitFor(() => (receiver.calls.length >= 4 ? true : undefined));
      expect(receiver.calls.at(-1)!.body.resetAt).to.equal('2026-11-22T00:00:00.000Z');
    } finally {
      await receiver.stop();
    }
  });
});

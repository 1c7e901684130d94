import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { hashApiKey } from '../src/auth/api-keys';
import { sameToken } from '../src/middleware/admin';
import { orgWithKey } from './accounts-helpers';
import { resetDoubles, startHarness, TEST_ADMIN_TOKEN, type Harness } from './harness';

const ORGS = '/api/v2/admin/organizations';

describe('gateway admin API: access', () => {
  let h: Harness;
  let disabled: Harness;
  before(async () => {
    h = await startHarness();
    disabled = await startHarness({ adminToken: null });
  });
  after(async () => {
    await h.stop();
    await disabled.stop();
  });

  function expectForbidden(reply: {
    status: number;
    body: { error: { code: string }; request_id: string };
    requestId: string;
  }) {
    expect(reply.status).to.equal(403);
    expect(reply.body.error.code).to.equal('forbidden');
    expect(reply.body.request_id).to.equal(reply.requestId);
  }

  it('answers 403 without a token, with a wrong token, and with an API key', async () => {
    expectForbidden(await h.send('GET', ORGS, { auth: false }));
    expectForbidden(
      await h.send('GET', ORGS, {
        auth: false,
        headers: { authorization: 'Bearer wrong-token-wrong-token' },
      }),
    );
    expectForbidden(
      await h.send('GET', ORGS, {
        auth: false,
        headers: { 'x-admin-token': `${TEST_ADMIN_TOKEN}x` },
      }),
    );
    expectForbidden(await h.send('GET', ORGS)); // X-API-Key of an organization is no admin token
  });

  it('accepts the token as a bearer token or in X-Admin-Token', async () => {
    expect(
      (
        await h.send('GET', ORGS, {
          auth: false,
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        })
      ).status,
    ).to.equal(200);
    expect(
      (await h.send('GET', ORGS, { auth: false, headers: { 'x-admin-token': TEST_ADMIN_TOKEN } }))
        .status,
    ).to.equal(200);
  });

  it('answers 403 to everything when ADMIN_TOKEN is unset', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer ' },
      { 'x-admin-token': '' },
      { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    ];
    for (const headers of attempts) {
      expectForbidden(await disabled.send('GET', ORGS, { auth: false, headers }));
    }
    expectForbidden(
      await disabled.send('POST', ORGS, {
        auth: false,
        body: { id: 'x', name: 'x', monthlyTokenQuota: 1 },
      }),
    );
  });

  it('compares tokens of any length in constant time', () => {
    expect(sameToken('abc', 'abc')).to.equal(true);
    expect(sameToken('abc', 'abcd')).to.equal(false);
    expect(sameToken('', 'abc')).to.equal(false);
  });
});

describe('gateway admin API: organizations', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it('creates an organization with defaults and pushes its policy to notification', async () => {
    const reply = await h.admin('POST', ORGS, {
      id: 'acme',
      name: 'Acme',
      monthlyTokenQuota: 100_000,
    });
    expect(reply.status).to.equal(201);
    expect(reply.body).to.deep.include({
      id: 'acme',
      name: 'Acme',
      monthlyTokenQuota: 100_000,
      thresholdShares: [0.9, 1],
      hardQuota: true,
      rateLimits: { requestsPerMinute: 600, tokensPerMinute: 200_000 },
    });
    expect(Date.parse(reply.body.createdAt)).to.be.closeTo(Date.now(), 5000);
    const push = h.doubles.notification.last('PutOrganizationPolicy');
    expect(push.request).to.deep.equal({
      organization: 'acme',
      monthly_token_quota: 100_000,
      threshold_shares: [0.9, 1],
      hard_quota: true,
    });
    expect(push.context.organization).to.equal('acme');
  });

  it('treats a repeated identical create as a retry (200) and a different one as a conflict (409)', async () => {
    const body = {
      id: 'twice',
      name: 'Twice',
      monthlyTokenQuota: 500,
      thresholdShares: [1, 0.5],
      hardQuota: false,
      rateLimits: { requestsPerMinute: 5 },
    };
    expect((await h.admin('POST', ORGS, body)).status).to.equal(201);
    const again = await h.admin('POST', ORGS, body);
    expect(again.status).to.equal(200);
    expect(again.body.thresholdShares).to.deep.equal([0.5, 1]);
    expect(h.doubles.notification.called('PutOrganizationPolicy')).to.equal(2);
    const other = await h.admin('POST', ORGS, { ...body, monthlyTokenQuota: 501 });
    expect(other.status).to.equal(409);
    expect(other.body.error.code).to.equal('conflict');
  });

  it('fails with 503 when the policy push fails, and succeeds when the same call is repeated', async () => {
    h.doubles.notification.on('PutOrganizationPolicy', async () => {
      throw new AppError('unavailable', 'ledger down');
    });
    const body = { id: 'flaky', name: 'Flaky', monthlyTokenQuota: 1000 };
    const failed = await h.admin('POST', ORGS, body);
    expect(failed.status).to.equal(503);
    expect(failed.body.error.code).to.equal('unavailable');
    h.doubles.notification.reset();
    const retried = await h.admin('POST', ORGS, body);
    expect(retried.status).to.equal(200);
    expect(h.doubles.notification.last('PutOrganizationPolicy').request.organization).to.equal(
      'flaky',
    );
  });

  it('gets, lists and updates organizations; an update pushes the new policy', async () => {
    await h.admin('POST', ORGS, { id: 'beta', name: 'Beta', monthlyTokenQuota: 10 });
    expect((await h.admin('GET', `${ORGS}/beta`)).body.name).to.equal('Beta');
    const list = await h.admin('GET', ORGS);
    expect(list.body.organizations.map((o: { id: string }) => o.id)).to.include.members([
      'acme',
      'beta',
    ]);
    const updated = await h.admin('PATCH', `${ORGS}/beta`, {
      monthlyTokenQuota: 20,
      hardQuota: false,
      rateLimits: { tokensPerMinute: 99 },
    });
    expect(updated.status).to.equal(200);
    expect(updated.body).to.deep.include({
      monthlyTokenQuota: 20,
      hardQuota: false,
      rateLimits: { requestsPerMinute: 600, tokensPerMinute: 99 },
    });
    expect(h.doubles.notification.last('PutOrganizationPolicy').request).to.include({
      monthly_token_quota: 20,
      hard_quota: false,
    });
  });

  it('validates the body and answers 404 for unknown organizations', async () => {
    const bad = await h.admin('POST', ORGS, { id: 'Not A Slug', name: 'x', monthlyTokenQuota: 0 });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).to.include.members([
      '/id',
      '/monthlyTokenQuota',
    ]);
    expect((await h.admin('PATCH', `${ORGS}/beta`, {})).status).to.equal(400);
    expect((await h.admin('GET', `${ORGS}/nobody`)).status).to.equal(404);
    expect((await h.admin('PATCH', `${ORGS}/nobody`, { name: 'x' })).status).to.equal(404);
    expect((await h.admin('POST', `${ORGS}/nobody/keys`, {})).status).to.equal(404);
  });
});

describe('gateway admin API: keys', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const generate = (key: string) =>
    h.send('POST', '/api/v2/ai/content/generate', { key, body: { prompt: 'hi' } });

  it('issues a key shown once that authenticates as the organization; lists keys without secrets', async () => {
    const { key, keyId } = await orgWithKey(h, { id: 'keys-a' });
    expect(key).to.match(/^sk_[A-Za-z0-9_-]{40,}$/);
    expect((await generate(key)).status).to.equal(200);
    expect(h.doubles.content.last('Generate').context).to.include({
      organization: 'keys-a',
      keyId,
    });
    const list = await h.admin('GET', `${ORGS}/keys-a/keys`);
    expect(list.body.keys).to.deep.equal([
      {
        keyId,
        organization: 'keys-a',
        name: 'test',
        createdAt: list.body.keys[0].createdAt,
        revokedAt: null,
      },
    ]);
    expect(JSON.stringify(list.body)).to.not.include(key).and.not.include(hashApiKey(key));
    expect((await h.apiKeys.findById(keyId))!.hash).to.equal(hashApiKey(key));
  });

  it('revokes a key: 401 afterwards', async () => {
    const { key, keyId } = await orgWithKey(h, { id: 'keys-b' });
    const revoked = await h.admin('POST', `/api/v2/admin/keys/${keyId}/revoke`, {});
    expect(revoked.status).to.equal(200);
    expect(revoked.body.revokedAt).to.be.a('string');
    const reply = await generate(key);
    expect(reply.status).to.equal(401);
    expect(reply.body.error.code).to.equal('unauthorized');
    expect((await h.admin('POST', '/api/v2/admin/keys/key_unknown/revoke', {})).status).to.equal(
      404,
    );
  });

  it('rotates a key: a new key at once, the old one until the grace period ends', async () => {
    const { key: oldKey, keyId } = await orgWithKey(h, { id: 'keys-c' });
    // A grace a loaded machine's two calls fit in; the old key is tried again once it ended.
    const rotated = await h.admin('POST', `/api/v2/admin/keys/${keyId}/rotate`, {
      gracePeriodSeconds: 3,
    });
    expect(rotated.status).to.equal(201);
    expect(rotated.body).to.include({ organization: 'keys-c', name: 'test', replacedKeyId: keyId });
    expect((await generate(rotated.body.key)).status).to.equal(200);
    expect((await generate(oldKey)).status).to.equal(200);
    const graceLeft = Date.parse(rotated.body.replacedKeyRevokedAt) - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceLeft) + 50));
    expect((await generate(oldKey)).status).to.equal(401);
    expect((await generate(rotated.body.key)).status).to.equal(200);
    const immediate = await h.admin('POST', `/api/v2/admin/keys/${rotated.body.keyId}/rotate`, {});
    expect((await generate(rotated.body.key)).status).to.equal(401);
    expect((await generate(immediate.body.key)).status).to.equal(200);
    expect((await h.admin('POST', `/api/v2/admin/keys/${keyId}/rotate`, {})).status).to.equal(409);
  });
});

import { expect } from 'chai';
import { orgWithKey } from './accounts-helpers';
import { startHarness, type Harness } from './harness';

describe('gateway: an organization manages its own keys', () => {
  let h: Harness;
  let acme: { key: string; keyId: string };
  let globex: { key: string; keyId: string };
  before(async () => {
    h = await startHarness();
    acme = await orgWithKey(h, { id: 'acme', monthlyTokenQuota: 5000, thresholdShares: [0.5, 1] });
    globex = await orgWithKey(h, { id: 'globex' });
  });
  after(() => h.stop());

  it('reads its own organization, not another one', async () => {
    const own = await h.send('GET', '/api/v2/organization', { key: acme.key });
    expect(own.status).to.equal(200);
    expect(own.body).to.include({ id: 'acme', monthlyTokenQuota: 5000 });
    expect(own.body.thresholdShares).to.deep.equal([0.5, 1]);
  });

  it('issues a key shown once that works at once, lists it without the secret, revokes it', async () => {
    const issued = await h.send('POST', '/api/v2/keys', { key: acme.key, body: { name: 'ci' } });
    expect(issued.status).to.equal(201);
    expect(issued.body).to.include({ organization: 'acme', name: 'ci', revokedAt: null });
    expect(issued.body.key).to.match(/^sk_/);
    expect((await h.send('GET', '/api/v2/organization', { key: issued.body.key })).status).to.equal(
      200,
    );

    const listed = await h.send('GET', '/api/v2/keys', { key: acme.key });
    expect(listed.status).to.equal(200);
    expect(listed.body.keys.map((k: { keyId: string }) => k.keyId)).to.include.members([
      acme.keyId,
      issued.body.keyId,
    ]);
    expect(JSON.stringify(listed.body)).not.to.include(issued.body.key);
    expect(listed.body.keys.every((k: { organization: string }) => k.organization === 'acme')).to.be
      .true;

    const revoked = await h.send('POST', `/api/v2/keys/${issued.body.keyId}/revoke`, {
      key: acme.key,
      body: {},
    });
    expect(revoked.status).to.equal(200);
    expect(revoked.body.revokedAt).to.be.a('string');
    const refused = await h.send('GET', '/api/v2/organization', { key: issued.body.key });
    expect(refused.status).to.equal(401);
    // Its holder is told when it stopped working (a console signed out by it says so).
    expect(refused.body.error.message).to.equal(
      `this API key was revoked at ${revoked.body.revokedAt}`,
    );
  });

  it('rotates a key: a new one with its name, the old one working for the grace period', async () => {
    const issued = await h.send('POST', '/api/v2/keys', { key: acme.key, body: { name: 'web' } });
    const rotated = await h.send('POST', `/api/v2/keys/${issued.body.keyId}/rotate`, {
      key: acme.key,
      body: { gracePeriodSeconds: 3600 },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(201);
    expect(rotated.body).to.include({
      organization: 'acme',
      name: 'web',
      replacedKeyId: issued.body.keyId,
    });
    expect(Date.parse(rotated.body.replacedKeyRevokedAt) - Date.now()).to.be.within(
      3_590_000,
      3_600_000,
    );
    for (const key of [issued.body.key, rotated.body.key])
      expect((await h.send('GET', '/api/v2/organization', { key })).status).to.equal(200);
    // Another organization's key is unknown here; an out-of-range grace period is refused.
    const foreign = await h.send('POST', `/api/v2/keys/${globex.keyId}/rotate`, {
      key: acme.key,
      body: {},
    });
    expect(foreign.status).to.equal(404);
    const invalid = await h.send('POST', `/api/v2/keys/${rotated.body.keyId}/rotate`, {
      key: acme.key,
      body: { gracePeriodSeconds: -1 },
    });
    expect(invalid.status).to.equal(400);
    expect(invalid.body.error.details[0].field).to.equal('/gracePeriodSeconds');
  });

  it("answers 404 for another organization's key and leaves it working", async () => {
    const reply = await h.send('POST', `/api/v2/keys/${globex.keyId}/revoke`, {
      key: acme.key,
      body: {},
    });
    expect(reply.status).to.equal(404);
    expect(reply.body.error.code).to.equal('not_found');
    expect((await h.send('GET', '/api/v2/keys', { key: globex.key })).status).to.equal(200);
  });

  it('validates the body as the admin route does', async () => {
    const reply = await h.send('POST', '/api/v2/keys', {
      key: acme.key,
      body: { name: 'x', admin: true },
    });
    expect(reply.status).to.equal(400);
    expect(reply.body.error.code).to.equal('invalid_request');
  });
});

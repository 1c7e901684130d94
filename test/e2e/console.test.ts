import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import {
  PHONE,
  expectAccessible,
  expectAtEveryWidth,
  expectFocusOn,
  requireBrowser,
} from '../support/browser';
import {
  consoleOrganization,
  issueKey,
  signIn,
  trackedPages,
  type ConsoleOrganization,
} from '../support/console';
import { mesh } from '../support/mesh';

/** The element that has the focus: its id (the field a form moved it to). */

describe('e2e: the console, in Chromium', function () {
  this.timeout(60_000);
  let org: ConsoleOrganization;
  const pages = trackedPages();

  before(async function () {
    requireBrowser.call(this);
    org = await consoleOrganization({ monthlyTokenQuota: 2_000, thresholdShares: [0.5, 0.9, 1] });
    // The organization's whole month: two calls, which every page below shows.
    for (const prompt of ['A tagline for a bakery', 'A tagline for a bike shop']) {
      const reply = await org.api('/api/v2/ai/content/generate', {
        body: { prompt, max_length: 40 },
      });
      expect(reply.status, reply.text).to.equal(200);
    }
  });

  it('is served under /console with a strict Content-Security-Policy', async () => {
    const { gatewayUrl } = await mesh();
    const page = await fetch(`${gatewayUrl}/console/webhooks`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'none'").and.include("script-src 'self'");
    expect(csp).not.to.include('unsafe-inline');
    expect(await page.text()).to.match(
      /<script type="module" crossorigin src="\/console\/assets\//,
    );

    const bare = await fetch(`${gatewayUrl}/console`, { redirect: 'manual' });
    expect(bare.status).to.equal(302);
    expect(bare.headers.get('location')).to.equal('/console/');
    const missing = await fetch(`${gatewayUrl}/console/assets/missing.js`);
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).to.equal(
      'not_found',
    );
  });

  it('refuses a wrong key, then signs in and shows the month after calls', async () => {
    const usage = await waitFor(async () => {
      const reply = await org.api('/api/v2/usage');
      return reply.body.calls === 2 && reply.body;
    }, 10_000);

    const page = await pages.open(org.gatewayUrl);
    await expectAtEveryWidth(page, 'the sign-in page', 'sign-in');
    await signIn(page, 'sk_not_a_key_of_anyone_0000');
    await page.getByText('That key was not accepted: unknown API key').waitFor();

    await signIn(page, org.key);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('.stat', { hasText: 'Calls' }).getByText('2', { exact: true }).waitFor();
    const modelRow = page.getByTestId('usage-by-model').locator('tr', { hasText: 'builtin' });
    expect(await modelRow.locator('td').nth(1).textContent()).to.equal('2');
    const meter = page.getByRole('meter', { name: 'Monthly token quota used' });
    expect(Number(await meter.getAttribute('aria-valuenow'))).to.equal(usage.used);
    expect(await meter.getAttribute('aria-valuemax')).to.equal('2000');
    await page.getByText(`${org.name} (${org.id})`).waitFor();
    await page.getByText('No call was refused this month').waitFor();
    // The charts drew on their canvases.
    expect(await page.locator('#daily canvas').count()).to.equal(1);
    await expectAtEveryWidth(page, 'the overview');

    // The session lives in this tab's session storage: a reload keeps it, a new context has none.
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.evaluate('JSON.stringify(sessionStorage)')).to.include(org.key);
    expect(await page.evaluate('JSON.stringify(localStorage)')).not.to.include(org.key);
  });

  it('tells an admin token pasted as a key, and a key pasted as the admin token, where it belongs', async () => {
    const { adminToken } = await mesh();
    const page = await pages.open(org.gatewayUrl);
    await signIn(page, adminToken);
    const refusal = page.getByRole('alert').filter({ hasText: 'Could not sign in' });
    await refusal.getByText('That is the gateway’s admin token, not an API key').waitFor();
    await expectAtEveryWidth(page, 'the sign-in page with a hint');
    await refusal.getByRole('button', { name: 'Switch to Administrator' }).click();
    await page.getByLabel('Admin token').fill(org.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await refusal.getByText('That is an API key, not the admin token').waitFor();
    await refusal.getByRole('button', { name: 'Switch to Organization' }).click();
    await page.getByLabel('API key').fill(org.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('counts refused calls by day and reason, and every billable route, on the overview and for the administrator', async () => {
    // A hard quota of 400 tokens and 1,000 tokens and 30 requests a minute per key.
    const limited = await consoleOrganization({
      monthlyTokenQuota: 400,
      rateLimits: { tokensPerMinute: 1_000, requestsPerMinute: 30 },
    });
    // The test's calls use keys of their own: the console's key keeps its 30 requests a minute.
    const calls = await issueKey(limited, 'calls');
    const generate = (maxLength: number) =>
      limited.api('/api/v2/ai/content/generate', {
        key: calls,
        body: { prompt: 'A tagline for a bakery', max_length: maxLength },
      });
    const served = await generate(40);
    expect(served.status, served.text).to.equal(200);
    // Its estimate (input + 400 output tokens) does not fit in what is left of the 400: quota.
    const overQuota = await generate(400);
    expect(overQuota.status, overQuota.text).to.equal(429);
    expect(overQuota.body.error.code).to.equal('quota_exceeded');
    // 2,000 tokens in a minute is more than the key's 1,000: token rate.
    for (let i = 0; i < 2; i++) {
      const overRate = await generate(2_000);
      expect(overRate.status, overRate.text).to.equal(429);
      expect(overRate.body.error.message).to.include('token rate limit');
    }
    // A key of its own over its 30 requests a minute: request rate, 5 times.
    const busy = await issueKey(limited, 'busy');
    const statuses = [];
    for (let i = 0; i < 35; i++)
      statuses.push((await limited.api('/api/v2/models', { key: busy })).status);
    expect(statuses.filter((s) => s === 429)).to.have.length(5);
    // Recommendations are counted too (a call, no tokens).
    const recommended = await limited.api('/api/v2/ai/recommendations', {
      key: calls,
      body: { userId: 'u1', numRecommendations: 3 },
    });
    expect(recommended.status, recommended.text).to.equal(200);

    // Read through the admin API, which no key's rate limit governs.
    const { adminToken } = await mesh();
    const report = await waitFor(async () => {
      const reply = await limited.api(`/api/v2/admin/organizations/${limited.id}/usage`, {
        key: null,
        authorization: `Bearer ${adminToken}`,
      });
      return reply.body.refused.calls === 8 && reply.body.calls === 2 && reply.body;
    }, 10_000);
    const today = new Date().toISOString().slice(0, 10);
    expect(report.refused.byReason).to.deep.equal([
      { reason: 'request_rate', calls: 5 },
      { reason: 'token_rate', calls: 2 },
      { reason: 'quota', calls: 1 },
    ]);
    expect(report.refused.daily).to.deep.include({ date: today, reason: 'quota', calls: 1 });
    expect(report.byEndpoint.map((e: { endpoint: string }) => e.endpoint)).to.include.members([
      '/api/v2/ai/content/generate',
      '/api/v2/ai/recommendations',
    ]);

    const page = await pages.open(limited.gatewayUrl);
    await signIn(page, limited.key);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const refused = page.locator('.stat', { hasText: 'Refused' });
    await refused.getByText('8', { exact: true }).waitFor();
    const table = page.getByTestId('refused-calls');
    const header = await table.locator('thead th').allTextContents();
    expect(header).to.deep.equal([
      'Day',
      'Requests per minute',
      'Tokens per minute',
      'Monthly quota',
    ]);
    expect(await table.locator('tbody tr').first().locator('td').allTextContents()).to.deep.equal([
      new Date().toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' }),
      '5',
      '2',
      '1',
    ]);
    await page.getByText('did not fit in what was left of the hard quota').waitFor();
    // The quota stat does not call the month fine while calls are refused for it.
    expect(await page.locator('.stat', { hasText: 'Quota left' }).getAttribute('class')).to.include(
      'stat-danger',
    );
    await page
      .locator('#endpoints tr', { hasText: '/api/v2/ai/recommendations' })
      .getByText('1', { exact: true })
      .waitFor();
    await expectAtEveryWidth(page, 'the overview with refused calls', 'overview');

    // The administrator sees the same month of the organization.
    const admin = await pages.open(limited.gatewayUrl);
    await signIn(admin, adminToken, 'Administrator');
    await admin.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
    await admin
      .getByTestId('organizations-table')
      .getByRole('button', { name: limited.name, exact: true })
      .click();
    await admin.getByRole('heading', { name: `Usage of ${limited.name}`, exact: false }).waitFor();
    await admin.locator('.stat', { hasText: 'Refused' }).getByText('8', { exact: true }).waitFor();
    expect(await admin.getByTestId('refused-calls').locator('tbody tr').count()).to.equal(2);
  });

  it('lists billed calls in the request logs, a page at a time and by key, with refused calls counted', async () => {
    const logged = await consoleOrganization({ rateLimits: { requestsPerMinute: 30 } });
    // A key of its own makes 30 calls and a 31st refused by its rate limit; the console's key one.
    const batch = await issueKey(logged, 'batch jobs');
    const statuses = [];
    for (let i = 0; i < 31; i++)
      statuses.push(
        (
          await logged.api('/api/v2/ai/content/generate', {
            key: batch,
            body: { prompt: `Tagline number ${i} for a bakery`, max_length: 12 },
          })
        ).status,
      );
    expect(statuses.filter((s) => s === 429)).to.have.length(1);
    const own = await logged.api('/api/v2/ai/content/generate', {
      body: { prompt: 'A tagline for a tea shop', max_length: 12 },
    });
    expect(own.status, own.text).to.equal(200);
    // Read through the admin API, which no key's rate limit governs.
    const { adminToken } = await mesh();
    await waitFor(async () => {
      const usage = (
        await logged.api(`/api/v2/admin/organizations/${logged.id}/usage`, {
          key: null,
          authorization: `Bearer ${adminToken}`,
        })
      ).body;
      return usage.calls === 31 && usage.refused.calls === 1;
    }, 10_000);

    const page = await pages.open(logged.gatewayUrl);
    await signIn(page, logged.key);
    await page.getByRole('link', { name: 'Request logs' }).click();
    await page.getByRole('heading', { name: 'Request logs', level: 1 }).waitFor();
    const rows = page.getByTestId('calls-table').locator('tbody tr');
    await rows.first().waitFor();
    // Newest first: the console key's call, with its request id.
    expect(await rows.count()).to.equal(25);
    expect(await rows.first().textContent())
      .to.include('/api/v2/ai/content/generate')
      .and.include('builtin')
      .and.include('console test')
      .and.include(own.headers.get('x-request-id')!)
      .and.include('Succeeded');
    const refused = page.getByTestId('refused-by-reason');
    expect(await refused.textContent()).to.include('1 Requests per minute');
    await expectAtEveryWidth(page, 'the request logs', 'logs');
    await page.getByRole('button', { name: 'Show older calls' }).click();
    await waitFor(async () => (await rows.count()) === 31, 10_000);
    expect(await page.getByRole('button', { name: 'Show older calls' }).count()).to.equal(0);
    // One key's calls.
    await page.getByLabel('Key').selectOption({ label: `console test (${logged.keyId})` });
    await waitFor(async () => (await rows.count()) === 1, 10_000);
    expect(await rows.first().textContent()).to.include(own.headers.get('x-request-id')!);
  });

  it('creates a key shown once that works, rotates one with a grace period, and revokes it', async () => {
    const own = await consoleOrganization();
    const page = await pages.open(own.gatewayUrl);
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('ci pipeline');
    await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret-value').textContent())!.trim();
    expect(secret).to.match(/^sk_/);
    await page.getByText('shown only this once').waitFor();
    await expectAtEveryWidth(page, 'the new key dialog', 'keys-created');
    await page.getByRole('button', { name: 'Done' }).click();

    expect((await own.api('/api/v2/organization', { key: secret })).status).to.equal(200);
    const row = page.locator('tr', { hasText: 'ci pipeline' });
    await row.getByText('Active').waitFor();
    expect(await page.getByTestId('keys-table').textContent()).not.to.include(secret);

    // Rotation: a new key of the same name, the old one working for the hour chosen.
    await row.getByRole('button', { name: 'Rotate ci pipeline' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('The old key keeps working for').selectOption({ label: '1 hour' });
    await expectAccessible(page, 'the rotation dialog');
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = (await page.getByTestId('secret-value').textContent())!.trim();
    expect(rotated).to.match(/^sk_/).and.not.equal(secret);
    expect(await page.getByTestId('rotation-grace').textContent()).to.include(
      'keeps working until',
    );
    await page.getByRole('button', { name: 'Done' }).click();
    expect((await own.api('/api/v2/organization', { key: rotated })).status).to.equal(200);
    expect((await own.api('/api/v2/organization', { key: secret })).status).to.equal(200);
    const keys = (await own.api('/api/v2/keys')).body.keys as Array<{
      name: string;
      revokedAt: string | null;
    }>;
    const old = keys.find((k) => k.name === 'ci pipeline' && k.revokedAt)!;
    const grace = Date.parse(old.revokedAt!) - Date.now();
    expect(grace).to.be.within(3_500_000, 3_600_000);
    const expiring = page.locator('tr', { hasText: 'ci pipeline' }).filter({ hasText: 'Expires' });
    await expiring.waitFor();

    // The old key is revoked now, at once, after a confirmation.
    await expiring.getByRole('button', { name: /^Revoke/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText(/Key ci pipeline revoked/).waitFor();
    await waitFor(
      async () => (await own.api('/api/v2/organization', { key: secret })).status === 401,
      5_000,
    );
    expect((await own.api('/api/v2/organization', { key: rotated })).status).to.equal(200);
    await expectAtEveryWidth(page, 'the keys page', 'keys');
  });

  it('signs a tab out when its key is revoked elsewhere, saying why', async () => {
    const own = await consoleOrganization();
    const key = await issueKey(own, 'laptop');
    const page = await pages.open(own.gatewayUrl);
    await signIn(page, key);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const keys = (await own.api('/api/v2/keys')).body.keys as Array<{
      keyId: string;
      name: string;
    }>;
    const laptop = keys.find((k) => k.name === 'laptop')!;
    expect((await own.api(`/api/v2/keys/${laptop.keyId}/revoke`, { body: {} })).status).to.equal(
      200,
    );
    // The tab learns of it at its next call: this click, or its own refresh if that came first
    // (then the link is gone before the click lands).
    await page
      .getByRole('link', { name: 'API keys' })
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    const notice = page.getByRole('status').filter({ hasText: 'You were signed out' });
    await notice.getByText(/this API key was revoked at \d{4}-/).waitFor();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await expectAtEveryWidth(page, 'the sign-in page after a revocation', 'signed-out');
  });

  it('lets the administrator edit quotas in percent, rate limits and the time zone, with errors at their fields', async () => {
    const own = await consoleOrganization({ monthlyTokenQuota: 2_000 });
    const { adminToken } = await mesh();
    const page = await pages.open(own.gatewayUrl);
    await signIn(page, adminToken, 'Administrator');
    await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
    const row = page.getByTestId('organizations-table').locator('tr', { hasText: own.id });
    expect(await row.textContent())
      .to.include('2,000')
      .and.include('90%, 100%');
    await row.getByRole('button', { name: own.name, exact: true }).click();
    await page.getByRole('heading', { name: `Keys of ${own.name}` }).waitFor();
    await page.locator('tr', { hasText: own.keyId }).getByText('Active').waitFor();
    await page.getByRole('heading', { name: `Usage of ${own.name}`, exact: false }).waitFor();
    await expectAtEveryWidth(page, 'the organizations page', 'admin');

    await row.getByRole('button', { name: `Edit ${own.name}` }).click();
    const dialog = page.getByRole('dialog');
    // Checked in the form's unit before anything is sent, the message at its field, focus on it.
    await dialog.getByLabel('usage_threshold marks (% of the quota)').fill('50, 0');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const marks = dialog.locator('#org-thresholds-error');
    expect(await marks.textContent()).to.include('percentage of the quota above 0');
    await expectFocusOn(page, 'org-thresholds');
    expect(
      await dialog
        .getByLabel('usage_threshold marks (% of the quota)')
        .getAttribute('aria-invalid'),
    ).to.equal('true');
    // The API's refusal, at the field it names.
    await dialog.getByLabel('usage_threshold marks (% of the quota)').fill('50, 80');
    await dialog.getByLabel('Requests per minute').fill('120');
    await dialog.getByLabel('Tokens per minute').fill('50000');
    await dialog.getByLabel('Time zone').fill('Mars/Olympus_Mons');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const zone = dialog.locator('#org-timezone-error');
    await zone.waitFor();
    expect(await zone.textContent()).to.equal('must be an IANA time zone');
    await expectFocusOn(page, 'org-timezone');
    await expectAtEveryWidth(page, 'the organization dialog with an error', 'admin-edit');

    await dialog.getByLabel('Time zone').fill('Europe/Berlin');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`${own.name} saved`).waitFor();
    const saved = (
      await own.api(`/api/v2/admin/organizations/${own.id}`, {
        key: null,
        authorization: `Bearer ${adminToken}`,
      })
    ).body;
    expect(saved).to.deep.include({
      thresholdShares: [0.5, 0.8],
      rateLimits: { requestsPerMinute: 120, tokensPerMinute: 50_000 },
      timeZone: 'Europe/Berlin',
    });
    await row.getByText('50%, 80%').waitFor();
    await row.getByText('Europe/Berlin').waitFor();
    await row.getByText('50,000').waitFor();
  });

  it('works with the keyboard alone and fits a phone screen', async () => {
    const page = await pages.open(org.gatewayUrl, PHONE);
    await page.keyboard.press('Tab'); // Organization
    await page.keyboard.press('Tab'); // Administrator
    await page.keyboard.press('Tab'); // the key field
    await page.keyboard.type(org.key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // Focus moves to the page's content after sign-in; the navigation is behind it.
    const focused = () =>
      page.evaluate<string | null>('document.activeElement?.getAttribute("href")');
    for (let i = 0; i < 10 && (await focused()) !== '/console/keys'; i++)
      await page.keyboard.press('Shift+Tab');
    expect(await focused()).to.equal('/console/keys');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    // The keys table scrolls in its own box: it takes focus, so the keyboard scrolls it too.
    const box = page.getByRole('region', { name: 'API keys' });
    await waitFor(async () => (await box.getAttribute('tabindex')) === '0', 5_000);
    await box.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    await waitFor(async () => (await box.evaluate((el) => el.scrollLeft)) > 0, 5_000);
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.locator('#daily canvas').waitFor();
    await expectAccessible(page, 'the overview on a phone');
  });
});

import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { expectAtEveryWidth, expectFocusOn, requireBrowser } from '../support/browser';
import { consoleOrganization, issueKey, signIn, trackedPages } from '../support/console';

describe('e2e: the console teams and key scopes, in Chromium', function () {
  this.timeout(90_000);
  const pages = trackedPages();

  before(function () {
    requireBrowser.call(this);
  });

  it("creates a team, edits a key's scopes, budgets and cache, shows usage by key, team and end user, and deletes the team after the 409", async () => {
    const org = await consoleOrganization();
    const appKey = await issueKey(org, 'app');
    const page = await pages.open(org.gatewayUrl);
    await signIn(page, org.key);

    // A team with a budget: a cost of 0 refused at its field, in words.
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    await page.getByText('No teams yet').waitFor();
    await page.getByRole('button', { name: 'Create team' }).click();
    const teamDialog = page.getByRole('dialog');
    await teamDialog.getByLabel('Name').fill('search');
    await teamDialog.getByLabel('Tokens').fill('50000');
    await teamDialog.getByLabel('Cost ($)').fill('0');
    await teamDialog.getByRole('button', { name: 'Create team' }).click();
    expect(await teamDialog.locator('#team-budget-cost-error').textContent()).to.equal(
      'Must be more than 0.',
    );
    await expectFocusOn(page, 'team-budget-cost');
    await teamDialog.getByLabel('Cost ($)').fill('20');
    await teamDialog.locator('#team-budget-cost-error').waitFor({ state: 'detached' });
    await teamDialog.getByLabel('Per').selectOption('day');
    await teamDialog.getByRole('button', { name: 'Create team' }).click();
    const teamRow = page.getByTestId('teams-table').locator('tr', { hasText: 'search' });
    await teamRow.getByText('50,000 tokens and $20.00 a day').waitFor();
    const [team] = (await org.api('/api/v2/teams')).body.teams;
    expect(team).to.deep.include({
      name: 'search',
      budget: { tokens: 50000, cost: 20, period: 'day' },
    });

    // The key's scopes, team, budgets and cache: the browser's checks at their fields first.
    await page.getByRole('link', { name: 'API keys' }).click();
    const keyRow = page.getByTestId('keys-table').locator('tr', { hasText: 'app' });
    await keyRow.getByText('none', { exact: true }).first().waitFor();
    await keyRow.getByRole('button', { name: 'Edit app' }).click();
    const keyDialog = page.getByRole('dialog');
    await keyDialog.getByLabel('Models').fill('builtin, fast gpt');
    await keyDialog.getByLabel('Routes').fill('/api/v2/ai/*');
    await keyDialog.getByLabel('Team').selectOption({ label: 'search' });
    await keyDialog.locator('#key-budget-tokens').fill('100000');
    await keyDialog.locator('#key-end-user-tokens').fill('20000');
    await keyDialog.locator('#key-end-user-period').selectOption('week');
    await keyDialog.getByLabel('Similarity threshold').fill('0.4');
    await keyDialog.getByRole('button', { name: 'Save' }).click();
    expect(await keyDialog.locator('#key-models-error').textContent()).to.include(
      '"fast gpt": a model id or alias starts with a letter or digit',
    );
    await keyDialog.locator('#key-cache-threshold-error').waitFor();
    await expectFocusOn(page, 'key-models');
    await expectAtEveryWidth(page, 'the key dialog with errors', 'keys-edit');
    await keyDialog.getByLabel('Models').fill('builtin');
    await keyDialog.getByLabel('Cache answers for (seconds)').fill('3600');
    await keyDialog.getByLabel('Similarity threshold').fill('0.9');
    await keyDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Key app saved').waitFor();
    const edited = (await org.api('/api/v2/keys')).body.keys.find(
      (k: { name: string }) => k.name === 'app',
    );
    expect(edited).to.deep.include({
      models: ['builtin'],
      routes: ['/api/v2/ai/*'],
      teamId: team.teamId,
      budget: { tokens: 100000, period: 'month' },
      endUserBudget: { tokens: 20000, period: 'week' },
      cache: { maxAgeSeconds: 3600, semanticThreshold: 0.9 },
    });
    // The toast comes with the PUT's answer; the table shows the key once its reload returns.
    await keyRow.filter({ hasText: 'models: builtin' }).waitFor();
    expect(await keyRow.textContent())
      .to.include('models: builtin')
      .and.include('routes: /api/v2/ai/*')
      .and.include('team: search')
      .and.include('each end user: 20,000 tokens a week')
      .and.include('cache: 3,600 s, by meaning from 0.9');

    // The key's scopes hold: another route is refused; the assistant's calls of two end users
    // are counted by key, team and end user.
    expect((await org.api('/api/v2/keys', { key: appKey })).status).to.equal(403);
    for (const [i, user] of ['alice', 'alice', 'bob'].entries()) {
      const reply = await org.api('/api/v2/ai/assistants/chat', {
        key: appKey,
        body: {
          user_id: user,
          session_id: `s${i}`,
          messages: [{ role: 'user', content: 'Hello there' }],
        },
      });
      expect(reply.status, reply.text).to.equal(200);
    }
    const usage = await waitFor(async () => {
      const report = (await org.api('/api/v2/usage')).body;
      return report.byEndUser.length === 2 && report.byTeam.length === 1 && report;
    }, 10_000);
    await page.reload();
    const endUsers = page.getByTestId('end-users-table');
    const alice = usage.byEndUser.find((u: { endUser: string }) => u.endUser === 'alice');
    expect(alice.calls).to.equal(2);
    expect(
      await endUsers.locator('tr', { hasText: 'alice' }).locator('td').nth(1).textContent(),
    ).to.equal('2');
    const keyUsage = usage.byKey[0];
    await keyRow
      .getByText(`${(keyUsage.tokensInput + keyUsage.tokensOutput).toLocaleString('en')} tokens`)
      .waitFor();

    // An emptied field removes that limit.
    await keyRow.getByRole('button', { name: 'Edit app' }).click();
    await keyDialog.locator('#key-end-user-tokens').fill('');
    await keyDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Key app saved').waitFor();
    const trimmed = (await org.api('/api/v2/keys')).body.keys.find(
      (k: { name: string }) => k.name === 'app',
    );
    expect(trimmed).to.not.have.property('endUserBudget');
    expect(trimmed.budget).to.deep.equal({ tokens: 100000, period: 'month' });

    // The team's usage; deleting it while a key belongs to it: the API's 409, in the dialog.
    await page.getByRole('link', { name: 'Teams' }).click();
    const teamUsage = usage.byTeam[0];
    await teamRow.getByText(`${teamUsage.calls} calls`, { exact: false }).waitFor();
    expect(await teamRow.textContent()).to.include('app');
    await teamRow.getByRole('button', { name: 'Delete search' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByRole('button', { name: 'Delete team' }).click();
    await confirm.getByText('409 conflict').waitFor();
    expect(await confirm.getByRole('alert').textContent()).to.include('still has 1 key(s)');
    expect(await confirm.getByTestId('team-members').textContent()).to.include(edited.keyId);
    await expectAtEveryWidth(page, 'the team deletion refused', 'teams-delete');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expectAtEveryWidth(page, 'the teams page', 'teams');

    // Out of the team on the keys page, then the team goes.
    await page.getByRole('link', { name: 'API keys' }).click();
    await keyRow.getByRole('button', { name: 'Edit app' }).click();
    await keyDialog.getByLabel('Team').selectOption({ label: 'No team' });
    await keyDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Key app saved').waitFor();
    await page.getByRole('link', { name: 'Teams' }).click();
    await teamRow.getByRole('button', { name: 'Delete search' }).click();
    await confirm.getByRole('button', { name: 'Delete team' }).click();
    await page.getByText('No teams yet').waitFor();
    expect((await org.api('/api/v2/teams')).body.teams).to.deep.equal([]);
  });
});

import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { callApi, type ApiOptions } from './http';
import { openConsole, type ConsolePage } from './browser';
import { mesh } from './mesh';

export interface ConsoleOrganization {
  id: string;
  name: string;
  key: string;
  keyId: string;
  gatewayUrl: string;
  /** A call to the gateway with this organization's key. */
  api<T = any>(path: string, options?: ApiOptions): ReturnType<typeof callApi<T>>;
}

/**
 * An organization of its own for a browser test, made through the admin API, so that its usage,
 * keys and webhooks are what the test did and nothing else that shares the embedded mesh.
 */
export async function consoleOrganization(
  settings: {
    monthlyTokenQuota?: number;
    thresholdShares?: number[];
    hardQuota?: boolean;
    rateLimits?: { requestsPerMinute?: number; tokensPerMinute?: number };
  } = {},
): Promise<ConsoleOrganization> {
  const m = await mesh();
  const id = `console-${randomBytes(4).toString('hex')}`;
  const name = `Acme ${id.slice(8)}`;
  const admin = { authorization: `Bearer ${m.adminToken}` };
  const created = await callApi(m.gatewayUrl, '', '/api/v2/admin/organizations', {
    key: null,
    headers: admin,
    body: { id, name, monthlyTokenQuota: 100_000, ...settings },
  });
  expect(created.status, created.text).to.equal(201);
  const issued = await callApi(m.gatewayUrl, '', `/api/v2/admin/organizations/${id}/keys`, {
    key: null,
    headers: admin,
    body: { name: 'console test' },
  });
  expect(issued.status, issued.text).to.equal(201);
  const key = issued.body.key as string;
  return {
    id,
    name,
    key,
    keyId: issued.body.keyId,
    gatewayUrl: m.gatewayUrl,
    api: (path, options) => callApi(m.gatewayUrl, key, path, options),
  };
}

/** Another key of the organization (its calls have rate-limit windows of their own). */
export async function issueKey(org: ConsoleOrganization, name: string): Promise<string> {
  const issued = await org.api('/api/v2/keys', { body: { name } });
  expect(issued.status, issued.text).to.equal(201);
  return issued.body.key as string;
}

/** Every console test's page: opened by the test, closed after it, failing it on any problem seen. */
export function trackedPages(): {
  open(url: string, viewport?: { width: number; height: number }): Promise<Page>;
} {
  let opened: ConsolePage | undefined;
  afterEach(async () => {
    const problems = opened?.problems ?? [];
    await opened?.close();
    opened = undefined;
    expect(problems, 'requests to other origins, console errors, page errors').to.deep.equal([]);
  });
  return {
    async open(url, viewport) {
      opened = await openConsole(url, viewport);
      return opened.page;
    },
  };
}

/** Signs in on the sign-in page as a person would: the key typed in, the button pressed. */
export async function signIn(
  page: Page,
  secret: string,
  as: 'Organization' | 'Administrator' = 'Organization',
) {
  if (as === 'Administrator') await page.getByRole('button', { name: 'Administrator' }).click();
  await page.getByLabel(as === 'Organization' ? 'API key' : 'Admin token').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

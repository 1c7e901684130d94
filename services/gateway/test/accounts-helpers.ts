import { expect } from 'chai';
import type { Harness } from './harness';

export interface OrgInput {
  id: string;
  monthlyTokenQuota?: number;
  hardQuota?: boolean;
  thresholdShares?: number[];
  rateLimits?: { requestsPerMinute?: number; tokensPerMinute?: number };
}

/** Creates an organization through the admin API and issues one key for it. */
export async function orgWithKey(
  h: Harness,
  input: OrgInput,
): Promise<{ key: string; keyId: string }> {
  const created = await h.admin('POST', '/api/v2/admin/organizations', {
    name: `Org ${input.id}`,
    monthlyTokenQuota: 1_000_000,
    ...input,
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const issued = await h.admin('POST', `/api/v2/admin/organizations/${input.id}/keys`, {
    name: 'test',
  });
  expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
  return { key: issued.body.key, keyId: issued.body.keyId };
}

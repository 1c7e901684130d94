import { expect } from 'chai';
import { budgetCounterKey } from '../src/metering/budgets';

describe('gateway budget counter names', () => {
  it("name an end user's counter whatever `user` holds, a lone surrogate too (fuzz seed 641095232)", () => {
    const owner = (endUser: string) =>
      ({ level: 'endUser', organization: 'org', id: 'key_1', endUser }) as const;
    expect(budgetCounterKey(owner('\ud800 lone'), 'tokens', 'd2026-11-29')).to.equal(
      budgetCounterKey(owner('\ufffd lone'), 'tokens', 'd2026-11-29'),
    );
    expect(budgetCounterKey(owner('ann/b:c'), 'cost', '2026-11')).to.equal(
      'budget-cost:{org}:key_1:user:ann%2Fb%3Ac:2026-11',
    );
  });
});

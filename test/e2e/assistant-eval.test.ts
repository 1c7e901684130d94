/**
 * The short form of the assistants' evaluation suite (npm run eval:assistants -- --short), on the
 * builtin engine: the floors a business relies on when it puts an assistant before its customers.
 */
import { expect } from 'chai';
import { DEFAULT_MIN_SCORE, formatReport, scoreOf } from '../eval/assistants/report';
import { developmentSet } from '../eval/assistants/development';
import { runSuite } from '../eval/assistants/suite';

describe('e2e: assistants evaluation suite, development set, short form (builtin)', function () {
  this.timeout(120_000);

  it('scores above the floor with no vendor data and no escalated greeting', async () => {
    const [result] = await runSuite({ set: developmentSet(), models: ['builtin'], short: true });
    if (!result) throw new Error('the suite ran no model');
    process.stdout.write(
      `${formatReport(result, { short: true, failures: true })
        .split('\n')
        .map((line) => `      ${line}`)
        .join('\n')}\n`,
    );
    expect(result.conversations).to.be.greaterThan(10);
    expect(result.vendorLeaks, 'replies with vendor data').to.equal(0);
    expect(result.escalatedGreetings, 'greetings handed to a person').to.equal(0);
    expect(scoreOf(result)).to.be.at.least(DEFAULT_MIN_SCORE);
    // Every kind of check is exercised, so a regression in one cannot hide behind the others.
    const kinds = new Set(result.checks.map((c) => c.kind));
    expect([...kinds]).to.include.members([
      'facts',
      'forbidden',
      'leak',
      'escalation',
      'next_step',
    ]);
  });
});

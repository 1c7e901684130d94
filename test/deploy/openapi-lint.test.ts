import { expect } from 'chai';
import { buildOpenApi, routeTable } from '@switchyard/gateway';
import { lintOpenApi as lint } from '../support/redocly';

describe('the OpenAPI document under Redocly recommended rules', function () {
  this.timeout(90_000);

  it('has no error and no warning', async () => {
    const report = await lint(buildOpenApi(routeTable));
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).to.deep.equal([]);
    expect(report.totals).to.include({ errors: 0, warnings: 0 });
  });

  it('the check can fail: a document without servers or license is reported', async () => {
    const { servers: _servers, ...document } = buildOpenApi(routeTable) as Record<string, unknown>;
    const info = { ...(document.info as Record<string, unknown>), license: undefined };
    const report = await lint({ ...document, info });
    expect(report.problems.map((p) => p.ruleId)).to.include.members([
      'no-empty-servers',
      'info-license',
    ]);
  });
});

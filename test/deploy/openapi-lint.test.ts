import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { buildOpenApi, routeTable } from '@switchyard/gateway';

const REPO = path.resolve(__dirname, '..', '..', '..');
const REDOCLY = path.join(REPO, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; message: string }>;
}

/** Redocly CLI's lint with its built-in recommended rules, on a document written to a file. */
async function lint(document: unknown): Promise<LintReport> {
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // Exits 1 on errors; the report is on stdout either way.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [REDOCLY, 'lint', file, '--format=json', '--extends=recommended'],
      { timeout: 60_000 },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return JSON.parse(stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

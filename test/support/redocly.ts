import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const REDOCLY = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'node_modules',
  '@redocly',
  'cli',
  'bin',
  'cli.js',
);

export interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; message: string }>;
}

/** Redocly CLI's lint with its built-in recommended rules, on a document written to a file. */
export async function lintOpenApi(document: unknown): Promise<LintReport> {
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

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';

const FIXTURE = join(__dirname, 'fixtures', 'crashing-server.js');
const API_KEY = 'sk_live_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BEARER = 'adm_a1b2c3d4e5f6a7b8c9d0e1f2';

interface Crash {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the fixture, POSTs the body to path, and collects what the process wrote until it exited. */
async function crashWith(path: string, body: string): Promise<Crash> {
  const child = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = /listening on (\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`the fixture exited before listening: ${stderr}`)));
  });
  await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', body });
  const code = await exited;
  return { code, stdout, stderr };
}

describe('crash output goes through the redacting logger (issue 24, item 6)', () => {
  const body = JSON.stringify({
    format: 'csv',
    content: `id,Straße\n1,x\n`,
    apiKey: API_KEY,
    note: `Authorization: Bearer ${BEARER} and ${SIGNING_SECRET}`,
  });

  for (const [path, what] of [
    ['/throw', 'uncaught exception'],
    ['/reject', 'unhandled promise rejection'],
  ] as const) {
    it(`logs an ${what} carrying a secret-bearing body as one scrubbed fatal line, then exits 1`, async () => {
      const crash = await crashWith(path, body);
      expect(crash.code).to.equal(1);
      expect(crash.stderr, 'nothing is written outside the logger').to.equal('');
      const fatal = crash.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { stack?: string } })
        .find((line) => line.level === 60);
      expect(fatal, crash.stdout).to.include({ msg: `${what}: the process exits` });
      expect(fatal!.err!.stack).to.include('cannot import').and.include('Straße');
      for (const secret of [API_KEY, SIGNING_SECRET, BEARER])
        expect(crash.stdout).to.not.include(secret);
    });
  }
});

import { expect } from 'chai';
import { runAdminCli, ExitCode } from '../src/cli/admin';
import { startHarness, TEST_ADMIN_TOKEN, type Harness } from './harness';

interface Run {
  code: number;
  out: string;
  err: string;
}

describe('gateway admin CLI', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());

  async function run(
    argv: string[],
    env: NodeJS.ProcessEnv = { GATEWAY_URL: h.baseUrl, ADMIN_TOKEN: TEST_ADMIN_TOKEN },
  ): Promise<Run> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('creates, gets, lists and updates an organization', async () => {
    const created = await run([
      'org',
      'create',
      '--id',
      'acme',
      '--name',
      'Acme Corp',
      '--quota',
      '100000',
      '--thresholds',
      '0.5,1.0',
      '--soft',
      '--rpm',
      '60',
      '--json',
    ]);
    expect(created.code, created.err).to.equal(ExitCode.ok);
    expect(JSON.parse(created.out)).to.deep.include({
      id: 'acme',
      name: 'Acme Corp',
      monthlyTokenQuota: 100000,
      thresholdShares: [0.5, 1],
      hardQuota: false,
    });
    expect(JSON.parse(created.out).rateLimits).to.deep.equal({
      requestsPerMinute: 60,
      tokensPerMinute: 200000,
    });
    const got = await run(['org', 'get', 'acme']);
    expect(got.out).to.match(/monthlyTokenQuota\s+100000/);
    const list = await run(['org', 'list']);
    expect(list.out.split('\n')[0]).to.match(/^id\s+name\s+monthlyTokenQuota/);
    expect(list.out).to.include('Acme Corp');
    const updated = await run(['org', 'update', 'acme', '--quota', '5000', '--hard', '--json']);
    expect(JSON.parse(updated.out)).to.include({
      monthlyTokenQuota: 5000,
      hardQuota: true,
      timeZone: 'UTC',
    });
    const zoned = await run(['org', 'update', 'acme', '--time-zone', 'Europe/Berlin', '--json']);
    expect(JSON.parse(zoned.out)).to.include({
      timeZone: 'Europe/Berlin',
      monthlyTokenQuota: 5000,
    });
    const refused = await run(['org', 'update', 'acme', '--time-zone', 'Berlin/Mitte']);
    expect(refused.code).to.equal(ExitCode.refused);
    expect(refused.err).to.include('timeZone');
  });

  it('bills an organization for its response cache hits, or not, with --bill-cache-hits and --free-cache-hits', async () => {
    const billed = await run(['org', 'update', 'acme', '--bill-cache-hits', '--json']);
    expect(billed.code, billed.err).to.equal(ExitCode.ok);
    expect(JSON.parse(billed.out)).to.include({ cacheHitsBilled: true, monthlyTokenQuota: 5000 });
    expect((await run(['org', 'get', 'acme'])).out).to.match(/cacheHitsBilled\s+true/);
    const free = await run(['org', 'update', 'acme', '--free-cache-hits', '--json']);
    expect(JSON.parse(free.out)).to.include({ cacheHitsBilled: false });
    const both = await run(['org', 'update', 'acme', '--bill-cache-hits', '--free-cache-hits']);
    expect(both.code).to.equal(ExitCode.usage);
    expect(both.err).to.include('cannot be combined');
    const created = await run([
      'org',
      'create',
      '--id',
      'billed',
      '--name',
      'Billed',
      '--quota',
      '1000',
      '--bill-cache-hits',
      '--json',
    ]);
    expect(JSON.parse(created.out)).to.include({ id: 'billed', cacheHitsBilled: true });
  });

  it('issues, lists, rotates and revokes keys', async () => {
    const issued = await run(['key', 'issue', 'acme', '--name', 'ci']);
    expect(issued.code).to.equal(ExitCode.ok);
    const key = /^(sk_\S+)$/m.exec(issued.out)![1]!;
    expect((await h.send('GET', '/api/v2/models', { key })).status).to.equal(200);
    const keyId = /keyId\s+(key_\S+)/.exec(issued.out)![1]!;
    const list = await run(['key', 'list', 'acme']);
    expect(list.out).to.include(keyId).and.not.include(key);
    const rotated = JSON.parse((await run(['key', 'rotate', keyId, '--json'])).out);
    expect(rotated.replacedKeyId).to.equal(keyId);
    expect((await h.send('GET', '/api/v2/models', { key })).status).to.equal(401);
    expect((await run(['key', 'revoke', rotated.keyId])).code).to.equal(ExitCode.ok);
    expect((await h.send('GET', '/api/v2/models', { key: rotated.key })).status).to.equal(401);
  });

  it('exits 1 with the error when the gateway refuses, 2 on usage errors, 3 when unreachable', async () => {
    const missing = await run(['org', 'get', 'nobody']);
    expect(missing.code).to.equal(ExitCode.refused);
    expect(missing.err).to.include('404 not_found');
    const forbidden = await run(['org', 'list'], {
      GATEWAY_URL: h.baseUrl,
      ADMIN_TOKEN: 'wrong-token-wrong-token',
    });
    expect(forbidden.code).to.equal(ExitCode.refused);
    expect(forbidden.err).to.include('403 forbidden');
    expect((await run(['org', 'create', '--id', 'x'])).code).to.equal(ExitCode.usage);
    expect((await run(['org', 'frobnicate'])).code).to.equal(ExitCode.usage);
    expect(
      (await run(['org', 'create', '--id', 'x', '--name', 'X', '--quota', 'lots'])).code,
    ).to.equal(ExitCode.usage);
    expect(
      (await run(['org', 'list'], { GATEWAY_URL: h.baseUrl })).code,
      'no ADMIN_TOKEN',
    ).to.equal(ExitCode.usage);
    expect(
      (
        await run(['org', 'list'], {
          GATEWAY_URL: 'http://127.0.0.1:1',
          ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        })
      ).code,
    ).to.equal(ExitCode.unreachable);
  });
});

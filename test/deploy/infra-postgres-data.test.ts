import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePorts } from '../support/stack';
import { ROOT } from './render';

const INFRA = path.join(ROOT, 'deploy', 'local', 'infra.sh');

function installed(): boolean {
  try {
    execFileSync('bash', [INFRA, 'installed'], { stdio: 'ignore', env: process.env });
    return true;
  } catch {
    return false;
  }
}

/**
 * Issue 37, what a fault run found: PostgreSQL data folders of removed run dirs (46-346 MB each)
 * stayed in the postgres user's home. As root, a run dir that user cannot enter (a mktemp -d
 * folder here) keeps FerretDB's PostgreSQL data in a folder of that home; a run dir's data goes
 * with it: `destroy` removes it, and once a run dir is gone (`stop`, then rm -rf), the next
 * `infra.sh stop` or `start` of any run removes what it left.
 */
describe('deploy/local/infra.sh: PostgreSQL data outside the run dir goes with it', function () {
  this.timeout(180_000);
  const dirs: string[] = [];

  before(function () {
    if (
      process.getuid?.() !== 0 ||
      !installed() ||
      !/ferretdb/.test(process.env.MONGO_IMPL ?? 'ferretdb')
    )
      this.skip();
  });

  after(() => {
    for (const dir of dirs) {
      execFileSync('bash', [INFRA, 'destroy'], {
        env: { ...process.env, SWITCHYARD_RUN_DIR: dir },
        stdio: 'ignore',
      });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  /** infra.sh in its own run dir (made by mktemp: mode 700, so the postgres user cannot enter it). */
  async function runDir() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infra-pg-'));
    dirs.push(dir);
    const [mongo, postgres] = await freePorts(2);
    const env = {
      ...process.env,
      SWITCHYARD_RUN_DIR: path.join(dir, 'infra'),
      MONGO_PORT: String(mongo),
      POSTGRES_PORT: String(postgres),
    };
    const run = (command: string) =>
      new Promise<string>((resolve, reject) =>
        execFile('bash', [INFRA, command], { env }, (error, _stdout, stderr) =>
          error ? reject(new Error(`infra.sh ${command}: ${stderr}`)) : resolve(stderr),
        ),
      );
    /** The folder of the postgres user's home that holds this run dir's data. */
    const dataFolder = () =>
      path.dirname(fs.readlinkSync(path.join(dir, 'infra', 'mongo', 'postgresql', 'data')));
    return { dir, run, dataFolder };
  }

  it('destroy removes the data folder it made in the postgres user home', async () => {
    const { run, dataFolder, dir } = await runDir();
    await run('start-mongo');
    const folder = dataFolder();
    const home = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).split(
      ':',
    )[5]!;
    expect(folder.startsWith(`${home}/switchyard-`), folder).to.equal(true);
    expect(fs.existsSync(path.join(folder, 'data', 'PG_VERSION'))).to.equal(true);
    await run('destroy');
    expect(fs.existsSync(folder)).to.equal(false);
    expect(fs.existsSync(path.join(dir, 'infra'))).to.equal(false);
  });

  it("a run dir removed after stop: the next stop of another run removes its data folder, a live run's stays", async () => {
    const gone = await runDir();
    await gone.run('start-mongo');
    const goneFolder = gone.dataFolder();
    await gone.run('stop');
    expect(fs.existsSync(goneFolder), 'stop keeps the data for the next start').to.equal(true);
    const live = await runDir();
    await live.run('start-mongo');
    const liveFolder = live.dataFolder();
    await live.run('stop-mongo');

    fs.rmSync(gone.dir, { recursive: true, force: true });
    const other = await runDir();
    const said = await other.run('stop');
    expect(fs.existsSync(goneFolder), said).to.equal(false);
    expect(said).to.include(`removed ${goneFolder}`);
    expect(fs.existsSync(path.join(liveFolder, 'data', 'PG_VERSION'))).to.equal(true);
  });
});

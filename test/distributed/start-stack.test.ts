import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { uniqueName, waitFor } from '@switchyard/shared/testing';
import { freePorts, isAlive, realInfrastructure } from '../support/stack';

const REPO = path.resolve(__dirname, '..', '..', '..');
const LAUNCHER = path.join(REPO, 'deploy', 'stack', 'dist', 'src', 'index.js');

/** The processes whose parent is pid (from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

interface Launched {
  launcher: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  components: number[];
}

/**
 * npm run start:stack as a developer runs it: the launcher in a process group of its own (a
 * terminal's foreground job), its five components as its children, every line they print kept.
 */
async function launch(secrets: Record<string, string>): Promise<Launched> {
  const [gateway, content, assistant, recommendation, notification] = await freePorts(5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-stack-'));
  const launcher = spawn(process.execPath, [LAUNCHER], {
    env: {
      ...process.env,
      ...secrets,
      STACK_ENV_FILE: path.join(dir, 'stack.env'),
      KAFKA_TOPIC_PREFIX: `${uniqueName('launch')}.`,
      GATEWAY_PORT: String(gateway),
      CONTENT_ADDR: `127.0.0.1:${content}`,
      ASSISTANT_ADDR: `127.0.0.1:${assistant}`,
      RECOMMENDATION_ADDR: `127.0.0.1:${recommendation}`,
      NOTIFICATION_ADDR: `127.0.0.1:${notification}`,
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  launcher.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  launcher.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    launcher.once('exit', (code) => {
      fs.rmSync(dir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor(() => gone || text.includes('Switchyard is running'), 120_000);
  if (gone) throw new Error(`start:stack exited before it was running:\n${text}`);
  const components = childrenOf(launcher.pid!);
  return { launcher, output: () => text, exited, components };
}

/** Ends what a failed test left running: the launcher's whole process group. */
function killGroup(run: Launched | undefined): void {
  if (!run?.launcher.pid) return;
  try {
    process.kill(-run.launcher.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Issue 37, what a fault run found: the launcher's banner printed an API key and an admin token
 * given in the environment, and a Ctrl-C logged "component exited; restarting it" for three
 * services while they stopped.
 */
describe('distributed: npm run start:stack in a terminal', function () {
  this.timeout(240_000);

  before(function () {
    if (!realInfrastructure()) this.skip();
  });

  describe('secrets given in the environment, then Ctrl-C', () => {
    const apiKey = `sk_given_${randomBytes(24).toString('base64url')}`;
    const adminToken = `adm_given_${randomBytes(24).toString('base64url')}`;
    const signingSecret = `whsec_${randomBytes(32).toString('base64')}`;
    let run: Launched | undefined;

    before(async () => {
      run = await launch({
        DEV_API_KEY: apiKey,
        ADMIN_TOKEN: adminToken,
        DEV_SIGNING_SECRET: signingSecret,
        SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      });
    });

    after(() => killGroup(run));

    it('prints them by their first characters only, in the banner and every line of every component', () => {
      const text = run!.output();
      expect(text).to.include(
        `API key (organization "dev"): ${apiKey.slice(0, 8)}... (DEV_API_KEY)`,
      );
      expect(text).to.include(
        `Admin token (admin API and CLI): ${adminToken.slice(0, 8)}... (ADMIN_TOKEN)`,
      );
      for (const secret of [apiKey, adminToken, signingSecret]) {
        expect(text).not.to.include(secret);
        // Nor a recognisable piece of it (the old hint printed its last characters too).
        expect(text).not.to.include(secret.slice(8, 20));
        expect(text).not.to.include(secret.slice(-6));
      }
    });

    it('SIGINT to the process group (Ctrl-C): every component stops and none is restarted', async () => {
      const { launcher, components } = run!;
      expect(components, 'the five components').to.have.length(5);
      process.kill(-launcher.pid!, 'SIGINT');
      expect(await run!.exited).to.equal(0);
      await waitFor(() => components.every((pid) => !isAlive(pid)), 60_000);
      const text = run!.output();
      expect(text).not.to.include('restarting it');
      expect(text).not.to.include('component restarted');
    });
  });

  it('SIGTERM to the launcher alone: it stops every component and restarts none', async () => {
    let run: Launched | undefined;
    try {
      run = await launch({});
      const { launcher, components } = run;
      expect(components, 'the five components').to.have.length(5);
      process.kill(launcher.pid!, 'SIGTERM');
      expect(await run.exited).to.equal(0);
      await waitFor(() => components.every((pid) => !isAlive(pid)), 60_000);
      expect(run.output()).not.to.include('restarting it');
      expect(run.output()).not.to.include('component restarted');
    } finally {
      killGroup(run);
    }
  });
});

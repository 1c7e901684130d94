'use strict';
/**
 * Other gateways measured beside Switchyard in the same run: Portkey's open-source gateway
 * (@portkey-ai/gateway), installed on demand into a cache folder under the user's home, never a
 * dependency of this project. When it cannot be installed or started the bench says so and goes on.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PORTKEY = { name: '@portkey-ai/gateway', version: '1.15.2' };

function portkeyDir() {
  return path.join(os.homedir(), '.cache', 'switchyard', 'peers', 'portkey', PORTKEY.version);
}

/** The installed server script, installing it first if needed; undefined (with why) when it cannot be. */
function installPortkey() {
  const dir = portkeyDir();
  const script = path.join(
    dir,
    'node_modules',
    ...PORTKEY.name.split('/'),
    'build',
    'start-server.js',
  );
  if (fs.existsSync(script)) return { script };
  fs.mkdirSync(dir, { recursive: true });
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-audit',
      '--no-fund',
      '--omit=dev',
      '--ignore-scripts',
      `${PORTKEY.name}@${PORTKEY.version}`,
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (npm.status !== 0 || !fs.existsSync(script))
    return {
      why: `npm install ${PORTKEY.name}@${PORTKEY.version} failed: ${(npm.stderr || npm.error?.message || '').trim().split('\n').at(-1)}`,
    };
  return { script };
}

async function waitListening(url, child, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited during start (code ${child.exitCode})`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not answering after ${timeoutMs} ms`);
}

/**
 * Portkey's gateway on a free port (headless), or { skipped: why }. Its requests name the
 * provider and the mock as a custom host in Portkey's headers; the upstream key passes through.
 */
async function startPortkey(upstreamUrl, freePort) {
  const installed = installPortkey();
  if (!installed.script) return { skipped: installed.why };
  const port = await freePort();
  const child = spawn(process.execPath, [installed.script, `--port=${port}`, '--headless'], {
    stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitListening(url, child);
  } catch (error) {
    child.kill('SIGTERM');
    return { skipped: `${PORTKEY.name} did not start: ${error.message}` };
  }
  const headers = {
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${upstreamUrl}/v1`,
  };
  return {
    name: `Portkey ${PORTKEY.version}`,
    url,
    gatewayPid: child.pid,
    pids: { portkey: child.pid },
    /** The direct request to the mock, sent through Portkey. */
    request: (direct) => ({ ...direct, headers: { ...direct.headers, ...headers } }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

module.exports = { startPortkey, portkeyDir };

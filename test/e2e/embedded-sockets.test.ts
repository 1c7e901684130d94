import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@switchyard/shared/testing';
import { startEmbeddedMesh } from '@switchyard/embedded';
import { callApi } from '../support/http';
import { E2E_ENV } from '../support/mesh';

/** The embedded mesh's private socket directories (mkdtemp: "switchyard-" and six characters). */
function socketDirectories(): string[] {
  return readdirSync(tmpdir()).filter((name) => /^switchyard-[A-Za-z0-9]{6}$/.test(name));
}

describe('e2e: the embedded services call each other over Unix sockets', function () {
  this.timeout(60_000);
  if (process.platform === 'win32') return;

  // A temporary folder of this test's own: other meshes (another suite, another run on the
  // machine) make their socket folders in the shared one meanwhile.
  const sharedTmp = process.env.TMPDIR;
  let ownTmp = '';
  beforeEach(() => {
    ownTmp = mkdtempSync(join(tmpdir(), 'sockets-test-'));
    process.env.TMPDIR = ownTmp;
  });
  afterEach(() => {
    if (sharedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = sharedTmp;
    rmSync(ownTmp, { recursive: true, force: true });
  });

  it('serves through the sockets of a private directory and removes it on stop', async () => {
    const before = new Set(socketDirectories());
    const mesh = await startEmbeddedMesh({ ...E2E_ENV }, silentLogger());
    try {
      const created = socketDirectories().filter((name) => !before.has(name));
      expect(created).to.have.length(1);
      expect(readdirSync(join(tmpdir(), created[0]!)).sort()).to.deep.equal([
        'assistant.sock',
        'content.sock',
        'notification.sock',
        'recommendation.sock',
      ]);
      // A route that crosses the gateway -> content hop.
      const models = await callApi(mesh.gatewayUrl, mesh.apiKey, '/api/v2/models');
      expect(models.status, models.text).to.equal(200);
    } finally {
      await mesh.stop();
    }
    expect(socketDirectories().filter((name) => !before.has(name))).to.deep.equal([]);
  });

  it('refuses a GRPC_IN_PROCESS that is neither true nor false (fail fast, nothing started)', async () => {
    const before = new Set(socketDirectories());
    const refusal = await startEmbeddedMesh(
      { ...E2E_ENV, GRPC_IN_PROCESS: 'maybe' },
      silentLogger(),
    ).then(
      async (mesh) => {
        await mesh.stop();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(String(refusal)).to.match(/GRPC_IN_PROCESS/);
    expect(socketDirectories().filter((name) => !before.has(name))).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { localEnv, portsFromEnv, requireFreePorts } from '@switchyard/stack';

describe('npm run start:stack: what a developer gets', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-env-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generates what a local run needs into a private env file, and reuses it on the next start', () => {
    const file = path.join(dir, '.run', 'stack.env');
    const first = localEnv({ KAFKA_BROKERS: 'k:9092' }, file);
    expect(first.generated).to.have.members([
      'SECRETS_ENCRYPTION_KEY',
      'ADMIN_TOKEN',
      'DEV_API_KEY',
      'DEV_SIGNING_SECRET',
    ]);
    expect(Buffer.from(first.env.SECRETS_ENCRYPTION_KEY!, 'base64')).to.have.length(32);
    expect(first.env.DEV_SIGNING_SECRET).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(first.env.DEV_API_KEY).to.match(/^sk_[A-Za-z0-9_-]{16,}$/);
    expect(first.env.ADMIN_TOKEN!.length).to.be.at.least(16);
    expect(first.env.KAFKA_BROKERS).to.equal('k:9092');
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);

    const second = localEnv({}, file);
    expect(second.generated).to.deep.equal([]);
    expect(second.fromFile).to.have.length(4);
    for (const name of [
      'SECRETS_ENCRYPTION_KEY',
      'ADMIN_TOKEN',
      'DEV_API_KEY',
      'DEV_SIGNING_SECRET',
    ])
      expect(second.env[name]).to.equal(first.env[name]);
  });

  it('lets the shell win and never writes its values to the file', () => {
    const file = path.join(dir, 'stack.env');
    const local = localEnv({ ADMIN_TOKEN: 'adm_from_the_shell_123456' }, file);
    expect(local.env.ADMIN_TOKEN).to.equal('adm_from_the_shell_123456');
    expect(local.generated).to.not.include('ADMIN_TOKEN');
    expect(fs.readFileSync(file, 'utf8')).to.not.include('adm_from_the_shell');
  });

  it("takes its ports from GATEWAY_PORT and the services' *_ADDR variables", () => {
    expect(portsFromEnv({})).to.deep.equal({
      gatewayPort: 8080,
      servicePorts: {
        content: 50051,
        assistant: 50052,
        recommendation: 50053,
        notification: 50054,
      },
    });
    const ports = portsFromEnv({
      GATEWAY_PORT: '18080',
      CONTENT_ADDR: '127.0.0.1:51051',
      NOTIFICATION_ADDR: 'localhost:51054',
    });
    expect(ports).to.deep.equal({
      gatewayPort: 18080,
      servicePorts: {
        content: 51051,
        assistant: 50052,
        recommendation: 50053,
        notification: 51054,
      },
    });
    expect(() => portsFromEnv({ CONTENT_ADDR: 'content' })).to.throw(
      /CONTENT_ADDR must be host:port/,
    );
  });

  it('refuses to start when a port is taken, naming the port and its use', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const { port } = server.address() as { port: number };
    try {
      const error = await requireFreePorts([{ port, use: 'content gRPC' }]).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).to.match(new RegExp(`port\\(s\\) in use: ${port} \\(content gRPC\\)`));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await requireFreePorts([{ port, use: 'content gRPC' }]); // free again
  });
});

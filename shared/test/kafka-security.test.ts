import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { KafkaEventBus } from '../src/adapters/kafka-event-bus';
import { readKafkaSettings } from '../src/adapters/kafka-settings';
import { Topics } from '../src/events/topics';
import { silentLogger, uniqueName } from '../src/testing';
import { usageEvent } from './outbox-fixtures';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'deploy', 'local', 'kafka-sasl.sh');
const KAFKA_JARS = path.join(
  process.env.SWITCHYARD_CACHE ?? path.join(os.homedir(), '.cache', 'switchyard'),
  'kafka-libs',
  '.installed',
);
const USER = 'kafka-content';
const PASSWORD = 'content-secret';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Two free consecutive ports (listener, controller). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    if ((await portFree(port)) && (await portFree(port + 1))) return port;
  }
}

/** A bus configured only through the KAFKA_* variables, as a service process is. */
function busFrom(env: NodeJS.ProcessEnv, brokers: string): KafkaEventBus {
  const settings = readKafkaSettings(env);
  return new KafkaEventBus({
    brokers: [brokers],
    clientId: uniqueName('sec'),
    logger: silentLogger(),
    topicPrefix: settings.topicPrefix,
    replicationFactor: settings.replicationFactor,
    ssl: settings.ssl,
    sasl: settings.sasl,
  });
}

describe('Kafka over TLS with SCRAM-SHA-512 (KAFKA_SSL_CA_FILE, KAFKA_SASL_*)', function () {
  this.timeout(120_000);
  const dir = path.join(os.tmpdir(), uniqueName('kafka-sasl'));
  let brokers = '';
  let secure: NodeJS.ProcessEnv;

  before(async function () {
    if (!existsSync(KAFKA_JARS)) this.skip(); // no local Kafka jars: deploy/local/infra.sh install
    const port = await freePortPair();
    execFileSync('bash', [SCRIPT, 'start', dir, String(port), USER, PASSWORD], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    brokers = `127.0.0.1:${port}`;
    secure = {
      KAFKA_SSL_CA_FILE: path.join(dir, 'ca.pem'),
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: USER,
      KAFKA_SASL_PASSWORD: PASSWORD,
    };
  });

  after(() => {
    if (brokers) execFileSync('bash', [SCRIPT, 'stop', dir]);
  });

  it('publishes and consumes through a SASL_SSL listener, topics created by the bus', async () => {
    const bus = busFrom(secure, brokers);
    try {
      const event = usageEvent(1, 'org_secure');
      let resolveDelivered: (id: string) => void;
      const delivered = new Promise<string>((resolve) => (resolveDelivered = resolve));
      await bus.subscribe({
        group: uniqueName('secure'),
        topics: [Topics.usage],
        handler: async (e) => resolveDelivered(e.id),
      });
      await bus.publish(event);
      expect(await delivered).to.equal(event.id);
    } finally {
      await bus.close();
    }
  });

  it('is refused with a wrong password, and without the cluster CA (the certificate is verified)', async () => {
    for (const env of [
      { ...secure, KAFKA_SASL_PASSWORD: 'wrong' },
      { ...secure, KAFKA_SSL_CA_FILE: '', KAFKA_SSL: 'true' },
    ]) {
      const bus = busFrom(env, brokers);
      const error = await bus.start().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      await bus.close().catch(() => undefined);
      expect(error, JSON.stringify({ ...env, KAFKA_SASL_PASSWORD: '***' })).to.be.instanceOf(Error);
      expect(error!.message).to.match(/authentication failed|certificate/i);
    }
  });
});

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Finds real Kafka, MongoDB and Redis for the test run, once, in this order:
 *  1. endpoints given in KAFKA_BROKERS, MONGODB_URI, REDIS_URL (CI starts local servers and sets them);
 *  2. a Docker engine: testcontainers (official Kafka, MongoDB 7 and Redis 7 images);
 *  3. the local servers of deploy/local/infra.sh, when they are installed on this machine.
 * Without any, suites that need a real backend are reported as pending.
 */
const REPO = path.resolve(__dirname, '..', '..', '..');
const INFRA_SCRIPT = path.join(REPO, 'deploy', 'local', 'infra.sh');

type Stop = () => Promise<void>;
const stops: Stop[] = [];

function haveAllEndpoints(): boolean {
  return Boolean(process.env.KAFKA_BROKERS && process.env.MONGODB_URI && process.env.REDIS_URL);
}

async function dockerEngineAvailable(): Promise<boolean> {
  if (!fs.existsSync('/var/run/docker.sock') && !process.env.DOCKER_HOST) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startContainers(): Promise<void> {
  const [{ KafkaContainer }, { MongoDBContainer }, { RedisContainer }] = await Promise.all([
    import('@testcontainers/kafka'),
    import('@testcontainers/mongodb'),
    import('@testcontainers/redis'),
  ]);
  const [kafka, mongo, redis] = await Promise.all([
    new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start(),
    new MongoDBContainer('mongo:7').start(),
    new RedisContainer('redis:7').start(),
  ]);
  process.env.KAFKA_BROKERS ||= `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
  process.env.MONGODB_URI ||= `${mongo.getConnectionString()}?directConnection=true`;
  process.env.REDIS_URL ||= redis.getConnectionUrl();
  stops.push(async () => {
    await Promise.all([kafka.stop(), mongo.stop(), redis.stop()]);
  });
}

function localInfraInstalled(): boolean {
  if (!fs.existsSync(INFRA_SCRIPT)) return false;
  try {
    execFileSync('bash', [INFRA_SCRIPT, 'installed'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function startLocalServers(): void {
  execFileSync('bash', [INFRA_SCRIPT, 'start'], { stdio: 'inherit' });
  const exports = execFileSync('bash', [INFRA_SCRIPT, 'env'], { encoding: 'utf8' });
  for (const match of exports.matchAll(/export (\w+)=(\S+)/g)) process.env[match[1]!] ||= match[2]!;
  process.env.SWITCHYARD_LOCAL_INFRA = '1';
  // Servers this run started are stopped by it; ones already running are left alone.
}

export async function setUpInfrastructure(): Promise<string> {
  if (haveAllEndpoints()) return 'endpoints from the environment';
  if (process.env.SWITCHYARD_TEST_INFRA === 'none') return 'none (SWITCHYARD_TEST_INFRA=none)';
  if (await dockerEngineAvailable()) {
    await startContainers();
    return 'testcontainers';
  }
  if (localInfraInstalled()) {
    startLocalServers();
    return 'local servers (deploy/local/infra.sh)';
  }
  return 'none: no Docker engine and no local servers installed (run deploy/local/infra.sh install); real-backend suites are pending';
}

export async function tearDownInfrastructure(): Promise<void> {
  for (const stop of stops.splice(0).reverse()) await stop();
}

import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { freePorts } from '../support/stack';

const REPO = path.resolve(__dirname, '..', '..', '..');
const INFRA = path.join(REPO, 'deploy', 'local', 'infra.sh');

export type Server = 'redis' | 'mongo' | 'kafka';

/**
 * A Kafka, MongoDB wire server and Redis of this run only (deploy/local/infra.sh with its own
 * SWITCHYARD_RUN_DIR and free ports), so the fault suite can stop and restart them: never the
 * shared ones other work on the machine uses.
 */
export class PrivateInfra {
  private env: NodeJS.ProcessEnv = {};

  async start(): Promise<Record<'KAFKA_BROKERS' | 'MONGODB_URI' | 'REDIS_URL', string>> {
    const [redis, kafka, controller, mongo, postgres] = await freePorts(5);
    this.env = {
      ...process.env,
      SWITCHYARD_RUN_DIR: path.join(REPO, '.run', `chaos-${process.pid}`),
      REDIS_PORT: String(redis),
      KAFKA_PORT: String(kafka),
      KAFKA_CONTROLLER_PORT: String(controller),
      MONGO_PORT: String(mongo),
      POSTGRES_PORT: String(postgres),
    };
    await this.run('start');
    const exports = await this.run('env');
    const found = Object.fromEntries(
      [...exports.matchAll(/export (\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    for (const name of ['KAFKA_BROKERS', 'MONGODB_URI', 'REDIS_URL'])
      if (!found[name]) throw new Error(`infra.sh printed no ${name}: ${exports}`);
    return found as Record<'KAFKA_BROKERS' | 'MONGODB_URI' | 'REDIS_URL', string>;
  }

  stopServer(server: Server): Promise<string> {
    return this.run(`stop-${server}`);
  }

  startServer(server: Server): Promise<string> {
    return this.run(`start-${server}`);
  }

  restartKafka(): Promise<string> {
    return this.run('restart-kafka');
  }

  /** Stops the servers and removes their data. */
  async stop(): Promise<void> {
    const dir = this.env.SWITCHYARD_RUN_DIR;
    if (!dir) return;
    // destroy also removes the PostgreSQL data kept outside the run dir when running as root.
    await this.run('destroy');
    rmSync(dir, { recursive: true, force: true });
  }

  private run(command: string): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        'bash',
        [INFRA, command],
        { env: this.env, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          error
            ? reject(new Error(`infra.sh ${command}: ${stderr || error.message}`))
            : resolve(stdout),
      );
    });
  }
}

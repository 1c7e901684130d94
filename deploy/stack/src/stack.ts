import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { checkHealth, SERVICE_NAMES } from '@switchyard/shared';

export type ComponentName = 'content' | 'assistant' | 'recommendation' | 'notification' | 'gateway';

const REPO = path.resolve(__dirname, '..', '..', '..', '..');
const SERVICES: Array<{ name: Exclude<ComponentName, 'gateway'>; port: number; health: string }> = [
  { name: 'content', port: 50051, health: SERVICE_NAMES.ContentService },
  { name: 'assistant', port: 50052, health: SERVICE_NAMES.AssistantService },
  { name: 'recommendation', port: 50053, health: SERVICE_NAMES.RecommendationService },
  { name: 'notification', port: 50054, health: SERVICE_NAMES.NotificationService },
];

export interface StackOptions {
  env: NodeJS.ProcessEnv;
  /** First port; services take base+1..base+4 and the gateway base (default 8080 / 50051..). */
  gatewayPort?: number;
  servicePorts?: Partial<Record<Exclude<ComponentName, 'gateway'>, number>>;
  /** Where each process's output goes: inherit (terminal), or a function per line. */
  output?: 'inherit' | ((component: ComponentName, line: string) => void);
  /** When set, each component gets its own database <prefix>_<component> (MONGODB_DATABASE). */
  databasePrefix?: string;
}

/**
 * The mesh as separate OS processes, each configured only through its environment, as in
 * Kubernetes. Components can be killed and started again (the restart proofs use this).
 */
export class Stack {
  private readonly processes = new Map<ComponentName, ChildProcess>();
  private readonly ports: Record<ComponentName, number>;

  constructor(private readonly options: StackOptions) {
    const gateway = options.gatewayPort ?? 8080;
    this.ports = {
      gateway,
      ...Object.fromEntries(SERVICES.map((s) => [s.name, options.servicePorts?.[s.name] ?? s.port])),
    } as Record<ComponentName, number>;
  }

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.ports.gateway}`;
  }

  /** Process id of a running component (benchmarks read its memory). */
  pidOf(name: ComponentName): number | undefined {
    return this.processes.get(name)?.pid;
  }

  address(name: Exclude<ComponentName, 'gateway'>): string {
    return `127.0.0.1:${this.ports[name]}`;
  }

  async startAll(): Promise<void> {
    for (const service of SERVICES) this.spawn(service.name);
    await Promise.all(SERVICES.map((s) => this.waitReady(s.name)));
    this.spawn('gateway');
    await this.waitReady('gateway');
  }

  /** Starts one component (again) and waits until it reports ready. */
  async start(name: ComponentName): Promise<void> {
    this.spawn(name);
    await this.waitReady(name);
  }

  /** Stops one component: SIGTERM (graceful) or SIGKILL (a crash). */
  async stop(name: ComponentName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.processes.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
    this.processes.delete(name);
  }

  async stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop('gateway', signal);
    await Promise.all(SERVICES.map((s) => this.stop(s.name, signal)));
  }

  private envFor(name: ComponentName): NodeJS.ProcessEnv {
    const base: NodeJS.ProcessEnv = { SWITCHYARD_MODE: 'distributed', ...this.options.env };
    if (this.options.databasePrefix) base.MONGODB_DATABASE = `${this.options.databasePrefix}_${name}`;
    if (name === 'gateway') {
      return {
        ...base,
        GATEWAY_PORT: String(this.ports.gateway),
        CONTENT_ADDR: this.address('content'),
        ASSISTANT_ADDR: this.address('assistant'),
        RECOMMENDATION_ADDR: this.address('recommendation'),
        NOTIFICATION_ADDR: this.address('notification'),
      };
    }
    // One host: each service gets its own metrics port (notification keeps the default).
    const metricsBase = Number(this.options.env.METRICS_PORT ?? 9464);
    const offset = { notification: 0, content: 1, assistant: 2, recommendation: 3 }[name];
    return {
      ...base,
      GRPC_PORT: String(this.ports[name]),
      CONTENT_ADDR: this.address('content'),
      RECOMMENDATION_ADDR: this.address('recommendation'),
      METRICS_PORT: String(metricsBase === 0 ? 0 : metricsBase + offset),
    };
  }

  private spawn(name: ComponentName): void {
    const entry = path.join(REPO, 'services', name, 'dist', 'src', 'index.js');
    const output = this.options.output ?? 'inherit';
    const child = spawn(process.execPath, [entry], {
      env: this.envFor(name),
      stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    if (typeof output === 'function') {
      for (const stream of [child.stdout, child.stderr]) {
        let buffered = '';
        stream?.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          for (const line of lines) output(name, line);
        });
      }
    }
    this.processes.set(name, child);
  }

  private async waitReady(name: ComponentName, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const child = this.processes.get(name);
      if (!child || child.exitCode !== null) throw new Error(`${name} exited during start (code ${child?.exitCode})`);
      if (await this.isReady(name)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${name} not ready after ${timeoutMs} ms`);
  }

  private async isReady(name: ComponentName): Promise<boolean> {
    if (name === 'gateway') {
      try {
        return (await fetch(`${this.gatewayUrl}/healthz`)).ok;
      } catch {
        return false;
      }
    }
    const service = SERVICES.find((s) => s.name === name)!;
    return (await checkHealth(this.address(name), service.health)) === 'SERVING';
  }
}

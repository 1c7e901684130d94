import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { checkHealth, SERVICE_NAMES, type Logger } from '@switchyard/shared';

/** A notification replica beyond the first ('notification'): notification-2, notification-3... */
export type NotificationReplica = `notification-${number}`;
export type ComponentName =
  'content' | 'assistant' | 'recommendation' | 'notification' | NotificationReplica | 'gateway';

const REPO = path.resolve(__dirname, '..', '..', '..', '..');
const SERVICES: Array<{ name: ServiceName; port: number; health: string }> = [
  { name: 'content', port: 50051, health: SERVICE_NAMES.ContentService },
  { name: 'assistant', port: 50052, health: SERVICE_NAMES.AssistantService },
  { name: 'recommendation', port: 50053, health: SERVICE_NAMES.RecommendationService },
  { name: 'notification', port: 50054, health: SERVICE_NAMES.NotificationService },
];

type ServiceName = Exclude<ComponentName, 'gateway' | NotificationReplica>;
/** A gRPC service process: a service or a notification replica. */
type ServiceProcess = Exclude<ComponentName, 'gateway'>;
/** A notification replica's ports are the first one's plus this per replica (gRPC and metrics). */
const REPLICA_PORT_STEP = 10;

/** The address variables the gateway reads; the stack binds each service on its port. */
const ADDRESS_VARIABLES: Record<ServiceName, string> = {
  content: 'CONTENT_ADDR',
  assistant: 'ASSISTANT_ADDR',
  recommendation: 'RECOMMENDATION_ADDR',
  notification: 'NOTIFICATION_ADDR',
};

/**
 * The ports a local stack binds, from the variables the components already read: GATEWAY_PORT,
 * and the port of each <SERVICE>_ADDR (host:port), each with its default.
 */
export function portsFromEnv(env: NodeJS.ProcessEnv): {
  gatewayPort: number;
  servicePorts: Record<ServiceName, number>;
} {
  const servicePorts = {} as Record<ServiceName, number>;
  for (const service of SERVICES) {
    const variable = ADDRESS_VARIABLES[service.name];
    const value = env[variable];
    const port = value ? Number(value.slice(value.lastIndexOf(':') + 1)) : service.port;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`${variable} must be host:port, got ${value}`);
    servicePorts[service.name] = port;
  }
  const gatewayPort = Number(env.GATEWAY_PORT ?? 8080);
  if (!Number.isInteger(gatewayPort) || gatewayPort < 1 || gatewayPort > 65535)
    throw new Error(`GATEWAY_PORT must be a port, got ${env.GATEWAY_PORT}`);
  return { gatewayPort, servicePorts };
}

export interface Supervision {
  logger: Logger;
  /** First restart delay; doubled after each crash in a row, up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A component that ran this long before it crashed starts again at the first delay. */
  stableAfterMs?: number;
}

export interface StackOptions {
  env: NodeJS.ProcessEnv;
  /** Added to one component's environment only (e.g. a log level for the process under study). */
  componentEnv?: Partial<Record<ComponentName, NodeJS.ProcessEnv>>;
  /** First port; services take base+1..base+4 and the gateway base (default 8080 / 50051..). */
  gatewayPort?: number;
  servicePorts?: Partial<Record<ServiceProcess, number>>;
  /**
   * Notification processes (default 1). They share the consumer group, the delivery log and the
   * due queue; the gateway calls the first. Replica k gets the first's gRPC and metrics ports
   * plus 10 * (k - 1) unless servicePorts names its port.
   */
  notificationReplicas?: number;
  /** Where each process's output goes: inherit (terminal), or a function per line. */
  output?: 'inherit' | ((component: ComponentName, line: string) => void);
  /** When set, each component gets its own database <prefix>_<component> (MONGODB_DATABASE). */
  databasePrefix?: string;
  /** Where the gateway reaches a service when not directly (e.g. a proxy in front of it in a proof). */
  gatewayUpstreams?: Partial<Record<ServiceName, string>>;
  /** Restart a component that exits unasked, with exponential backoff (npm run start:stack). */
  supervise?: Supervision;
}

/** One supervised component's crash streak and pending restart. */
interface RestartState {
  crashes: number;
  timer?: NodeJS.Timeout;
}

/**
 * The mesh as separate OS processes, each configured only through its environment, as in
 * Kubernetes. Components can be killed and started again (the restart proofs use this).
 */
export class Stack {
  private readonly processes = new Map<ComponentName, ChildProcess>();
  private readonly ports: Record<ComponentName, number>;
  /** The gRPC service processes: the services, then the notification replicas beyond the first. */
  private readonly services: Array<{ name: ServiceProcess; health: string }>;
  /** Components being stopped on purpose: their exit is not a crash. */
  private readonly stopping = new Set<ComponentName>();
  private readonly restarts = new Map<ComponentName, RestartState>();
  /** Set once the whole stack is stopping: from then on no exit is a crash and nothing restarts. */
  private closing = false;

  constructor(private readonly options: StackOptions) {
    const gateway = options.gatewayPort ?? 8080;
    this.ports = {
      gateway,
      ...Object.fromEntries(
        SERVICES.map((s) => [s.name, options.servicePorts?.[s.name] ?? s.port]),
      ),
    } as Record<ComponentName, number>;
    this.services = [...SERVICES];
    for (let k = 2; k <= (options.notificationReplicas ?? 1); k++) {
      const name: NotificationReplica = `notification-${k}`;
      this.services.push({ name, health: SERVICE_NAMES.NotificationService });
      this.ports[name] =
        options.servicePorts?.[name] ?? this.ports.notification + REPLICA_PORT_STEP * (k - 1);
    }
  }

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.ports.gateway}`;
  }

  /** Process id of a running component (benchmarks read its memory). */
  pidOf(name: ComponentName): number | undefined {
    const child = this.processes.get(name);
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  address(name: ServiceProcess): string {
    return `127.0.0.1:${this.ports[name]}`;
  }

  /**
   * The gateway's target for notification: with replicas, every one's address (grpc-js's `ipv4:`
   * target), so while one is down the gateway's calls go to another (the default pick_first
   * policy moves on to the next address), as a Kubernetes Service spreads them.
   */
  private notificationTarget(): string {
    const replicas = this.services.filter(
      (s) => s.name === 'notification' || replicaNumber(s.name),
    );
    if (replicas.length === 1) return this.address('notification');
    return `ipv4:${replicas.map((s) => this.address(s.name)).join(',')}`;
  }

  /** Every port the stack binds (gRPC, gateway, metrics), named, for a check before it starts. */
  plannedPorts(): Array<{ port: number; use: string }> {
    const ports = [{ port: this.ports.gateway, use: 'gateway HTTP' }];
    for (const service of this.services) {
      ports.push({ port: this.ports[service.name], use: `${service.name} gRPC` });
      const metrics = Number(this.envFor(service.name).METRICS_PORT);
      if (metrics > 0) ports.push({ port: metrics, use: `${service.name} metrics` });
    }
    return ports;
  }

  /** Starts every component; if one fails to start, stops those already started (no orphans). */
  async startAll(): Promise<void> {
    try {
      for (const service of this.services) this.spawn(service.name);
      await Promise.all(this.services.map((s) => this.waitReady(s.name)));
      this.spawn('gateway');
      await this.waitReady('gateway');
    } catch (error) {
      await this.stopAll('SIGKILL');
      throw error;
    }
  }

  /** Starts one component (again) and waits until it reports ready. */
  async start(name: ComponentName): Promise<void> {
    this.cancelRestart(name);
    this.spawn(name);
    await this.waitReady(name);
  }

  /** Stops one component: SIGTERM (graceful) or SIGKILL (a crash). */
  async stop(name: ComponentName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.cancelRestart(name);
    const child = this.processes.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.stopping.add(name);
    try {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      await exited;
      this.processes.delete(name);
    } finally {
      this.stopping.delete(name);
    }
  }

  /**
   * Stops every component and never restarts one again. A Ctrl-C reaches the children too (one
   * process group), so they may exit before this runs: `closing` keeps those exits from counting
   * as crashes, and pending restarts are cancelled.
   */
  async stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.closing = true;
    for (const name of this.restarts.keys()) this.cancelRestart(name);
    await this.stop('gateway', signal);
    await Promise.all(this.services.map((s) => this.stop(s.name, signal)));
  }

  private envFor(name: ComponentName): NodeJS.ProcessEnv {
    const replica = replicaNumber(name);
    const base: NodeJS.ProcessEnv = {
      SWITCHYARD_MODE: 'distributed',
      // Compiled code kept between starts: a restarted process loads its modules faster.
      NODE_COMPILE_CACHE: path.join(REPO, '.run', 'node-compile-cache'),
      ...this.options.env,
      ...this.options.componentEnv?.[replica ? 'notification' : name],
      ...(replica && this.options.componentEnv?.[name]),
    };
    // The replicas share the first notification's database (and so its due queue in Redis).
    if (this.options.databasePrefix)
      base.MONGODB_DATABASE = `${this.options.databasePrefix}_${replica ? 'notification' : name}`;
    if (name === 'gateway') {
      return {
        ...base,
        GATEWAY_PORT: String(this.ports.gateway),
        CONTENT_ADDR: this.address('content'),
        ASSISTANT_ADDR: this.address('assistant'),
        RECOMMENDATION_ADDR: this.address('recommendation'),
        NOTIFICATION_ADDR: this.notificationTarget(),
        ...Object.fromEntries(
          Object.entries(this.options.gatewayUpstreams ?? {}).map(([service, address]) => [
            ADDRESS_VARIABLES[service as ServiceName],
            address,
          ]),
        ),
      };
    }
    // One host: each service gets its own metrics port (notification keeps the default).
    const metricsBase = Number(this.options.env.METRICS_PORT ?? 9464);
    const offset = replica
      ? REPLICA_PORT_STEP * (replica - 1)
      : { notification: 0, content: 1, assistant: 2, recommendation: 3 }[name as ServiceName];
    return {
      ...base,
      GRPC_PORT: String(this.ports[name]),
      CONTENT_ADDR: this.address('content'),
      RECOMMENDATION_ADDR: this.address('recommendation'),
      METRICS_PORT: String(metricsBase === 0 ? 0 : metricsBase + offset),
    };
  }

  private spawn(name: ComponentName): void {
    const service = replicaNumber(name) ? 'notification' : name;
    const entry = path.join(REPO, 'services', service, 'dist', 'src', 'index.js');
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
    const startedAt = Date.now();
    child.once('exit', (code, signal) =>
      this.exited(name, child, { code, signal, ranMs: Date.now() - startedAt }),
    );
  }

  /** A supervised component that crashed starts again after a backoff that doubles per crash in a row. */
  private exited(
    name: ComponentName,
    child: ChildProcess,
    how: { code: number | null; signal: NodeJS.Signals | null; ranMs: number },
  ): void {
    const supervise = this.options.supervise;
    if (!supervise || this.closing || this.stopping.has(name) || this.processes.get(name) !== child)
      return;
    // Restart on failure only, as systemd's Restart=on-failure: a clean exit, or SIGINT/SIGTERM
    // (a terminal's Ctrl-C reaches every child of the process group, possibly before the
    // supervisor's own handler runs), is a stop someone asked for. A crash, kill -9 or the OOM
    // killer's SIGKILL is not.
    if (how.code === 0 || how.signal === 'SIGINT' || how.signal === 'SIGTERM') {
      supervise.logger.info(
        { component: name, code: how.code, signal: how.signal },
        'component stopped on request; left stopped',
      );
      return;
    }
    const state = this.restarts.get(name) ?? { crashes: 0 };
    if (how.ranMs >= (supervise.stableAfterMs ?? 30_000)) state.crashes = 0;
    const delayMs = Math.min(
      supervise.maxDelayMs ?? 30_000,
      (supervise.initialDelayMs ?? 500) * 2 ** state.crashes,
    );
    state.crashes++;
    supervise.logger.warn(
      { component: name, code: how.code, signal: how.signal, crashes: state.crashes, delayMs },
      'component exited; restarting it',
    );
    state.timer = setTimeout(() => {
      state.timer = undefined;
      if (this.closing) return;
      this.spawn(name);
      this.waitReady(name).then(
        () => supervise.logger.info({ component: name }, 'component restarted and ready'),
        (error: Error) =>
          supervise.logger.error(
            { component: name, reason: error.message },
            'restarted component did not become ready',
          ),
      );
    }, delayMs);
    this.restarts.set(name, state);
  }

  private cancelRestart(name: ComponentName): void {
    const state = this.restarts.get(name);
    if (state?.timer) clearTimeout(state.timer);
    if (state) state.timer = undefined;
  }

  private async waitReady(name: ComponentName, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const child = this.processes.get(name);
      if (!child || child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${name} exited during start (code ${child?.exitCode}, signal ${child?.signalCode}); its log above says why`,
        );
      }
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
    const service = this.services.find((s) => s.name === name)!;
    return (await checkHealth(this.address(name), service.health)) === 'SERVING';
  }
}

/** k of notification-k (a replica beyond the first), else undefined. */
function replicaNumber(name: ComponentName): number | undefined {
  const match = /^notification-(\d+)$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

export { localEnv, type LocalEnv } from './local-env';
export { requireFreePorts } from './ports';

import { AppError } from '@switchyard/shared';
import { Counter, Gauge } from 'prom-client';
import type { RoutingStrategy } from '../config/registry-schema';
import { ChatModel, type ChatBackend, type ChatOutput, type Sampling } from '../chat-model';
import { modelMetrics } from '../model-metrics';
import type {
  CallOptions,
  ChatMessage,
  ChatRelay,
  DeltaSink,
  DeploymentState,
  ModelInfo,
  ToolSpec,
} from '../text-model';
import { spentOf } from '../usage';
import type { Attempt, ChatClient, RelayResponse } from './chat-client';
import { isRetryableStatus } from './retry-policy';

/** One upstream of the model: its own endpoint and key, one attempt per call (the pool moves on). */
export interface Deployment {
  id: string;
  weight: number;
  /** The model name this upstream knows (an Azure deployment: in its URL already). */
  upstreamModel: string;
  client: ChatClient;
}

/** A deployment as ListModels and /api/v2/models show it. */
export type DeploymentView = DeploymentState;

interface Live {
  spec: Deployment;
  inFlight: number;
  latencyMs?: number;
  cooldownUntil: number;
  requests: number;
  failures: number;
}

export interface DeploymentPoolOptions {
  model: ModelInfo;
  strategy: RoutingStrategy;
  cooldownMs: number;
  deployments: Deployment[];
  /** The entry's upstream model name: bodies relayed name it unless a deployment knows another. */
  upstreamModel: string;
  outputTokenParam: ChatRelay['outputTokenParam'];
  now?: () => number;
  random?: () => number;
}

/** Weight of a new latency sample in the moving average. */
const LATENCY_ALPHA = 0.3;

const pools = new Set<DeploymentPool>();

/** The state of every pool's deployments, read at each scrape. */
const deploymentUp = new Gauge({
  name: 'model_deployment_up',
  help: 'A deployment of a model taking calls (1) or cooling down after a failure (0), in this replica.',
  labelNames: ['model', 'deployment'] as const,
  registers: [modelMetrics],
  collect() {
    for (const pool of pools)
      for (const view of pool.views())
        this.set({ model: pool.modelId, deployment: view.id }, view.state === 'healthy' ? 1 : 0);
  },
});
const deploymentInFlight = new Gauge({
  name: 'model_deployment_in_flight',
  help: 'Calls in progress on a deployment of a model, in this replica.',
  labelNames: ['model', 'deployment'] as const,
  registers: [modelMetrics],
  collect() {
    for (const pool of pools)
      for (const view of pool.views())
        this.set({ model: pool.modelId, deployment: view.id }, view.inFlight);
  },
});
const deploymentCalls = new Counter({
  name: 'model_deployment_calls_total',
  help: 'Attempts on a deployment of a model by outcome: succeeded, failed (moved on or gave up), refused (a client error, not counted against it).',
  labelNames: ['model', 'deployment', 'outcome'] as const,
  registers: [modelMetrics],
});
const deploymentCooldowns = new Counter({
  name: 'model_deployment_cooldowns_total',
  help: 'Times a deployment of a model was put to cool down after a failure.',
  labelNames: ['model', 'deployment'] as const,
  registers: [modelMetrics],
});
void deploymentUp;
void deploymentInFlight;

/** Timeouts, 429, 5xx and unreachable upstreams count against a deployment; a client error does not. */
function isDeploymentFailure(error: unknown): boolean {
  if (!(error instanceof AppError)) return false;
  if (error.code === 'timeout') return true;
  if (error.code !== 'upstream_error') return false;
  const status = error.details[0]?.status;
  return isRetryableStatus(typeof status === 'number' ? status : undefined);
}

/**
 * A model spread over several upstreams (keys, regions, servers). Each call goes to one
 * deployment not cooling down, picked by the strategy: `weighted` (at random in proportion to
 * weight), `least-busy` (fewest calls in flight here) or `latency` (lowest moving average of the
 * time to the first byte; one never measured first). A deployment that fails (timeout, 429, 5xx,
 * unreachable) cools down for cooldownMs and the call moves at once to the next one; when every
 * deployment failed or is cooling down the call fails, and the model's fallbacks are tried. A
 * model without fallbacks tries its cooling deployments too rather than fail untried. A stream
 * that already sent part of its answer never moves. State is per replica.
 */
export class DeploymentPool implements ChatBackend, ChatRelay {
  private readonly live: Live[];
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: DeploymentPoolOptions) {
    this.live = options.deployments.map((spec) => ({
      spec,
      inFlight: 0,
      cooldownUntil: 0,
      requests: 0,
      failures: 0,
    }));
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    pools.add(this);
  }

  get modelId(): string {
    return this.options.model.id;
  }

  get strategy(): RoutingStrategy {
    return this.options.strategy;
  }

  get upstreamModel(): string {
    return this.options.upstreamModel;
  }

  get outputTokenParam(): ChatRelay['outputTokenParam'] {
    return this.options.outputTokenParam;
  }

  views(): DeploymentView[] {
    const now = this.now();
    return this.live.map((d) => ({
      id: d.spec.id,
      weight: d.spec.weight,
      state: d.cooldownUntil > now ? 'cooling_down' : 'healthy',
      ...(d.cooldownUntil > now ? { cooldownUntil: new Date(d.cooldownUntil).toISOString() } : {}),
      inFlight: d.inFlight,
      ...(d.latencyMs !== undefined ? { latencyMs: Math.round(d.latencyMs * 10) / 10 } : {}),
      requests: d.requests,
      failures: d.failures,
    }));
  }

  complete(
    messages: ChatMessage[],
    maxTokens: number,
    call: CallOptions = {},
    tools?: ToolSpec[],
    sampling?: Sampling,
  ): Promise<ChatOutput> {
    return this.run(call, (d) =>
      d.spec.client.complete(messages, maxTokens, call, tools, sampling),
    );
  }

  stream(
    messages: ChatMessage[],
    maxTokens: number,
    onDelta: DeltaSink,
    call: CallOptions = {},
    sampling?: Sampling,
  ): Promise<ChatOutput> {
    return this.run(call, (d, answered) =>
      d.spec.client.stream(
        messages,
        maxTokens,
        (delta) => {
          answered();
          return onDelta(delta);
        },
        call,
        sampling,
      ),
    );
  }

  embed(
    inputs: string[],
    call: CallOptions = {},
  ): Promise<{ vectors: number[][]; tokensInput: number }> {
    return this.run(call, (d) => d.spec.client.embed(inputs, call));
  }

  relay<T>(
    body: string,
    call: CallOptions,
    read: (response: RelayResponse, attempt: Attempt) => Promise<T>,
  ): Promise<T> {
    return this.run(call, (d, answered) =>
      d.spec.client.relay(this.bodyFor(d.spec, body), call, (response, attempt) => {
        answered();
        return read(response, attempt);
      }),
    );
  }

  /** A deployment that knows the model by another name gets the body with that name. */
  private bodyFor(spec: Deployment, body: string): string {
    if (spec.upstreamModel === this.options.upstreamModel) return body;
    return JSON.stringify({ ...(JSON.parse(body) as object), model: spec.upstreamModel });
  }

  private async run<T>(
    call: CallOptions,
    attempt: (deployment: Live, answered: () => void) => Promise<T>,
  ): Promise<T> {
    const tried = new Set<Live>();
    let lastError: unknown;
    for (let next = this.next(tried); next; next = this.next(tried)) {
      const deployment = next;
      tried.add(deployment);
      const started = this.now();
      let measured = false;
      const answered = () => {
        if (measured) return;
        measured = true;
        this.observe(deployment, this.now() - started);
      };
      deployment.inFlight++;
      deployment.requests++;
      try {
        const result = await attempt(deployment, answered);
        answered();
        this.count(deployment, 'succeeded');
        return result;
      } catch (error) {
        if (!isDeploymentFailure(error)) {
          this.count(deployment, 'refused');
          throw error;
        }
        this.fail(deployment);
        lastError = error;
        // Part of the answer was sent, or the caller is gone or out of time: nothing to move to.
        const expired = call.deadline !== undefined && Date.now() >= call.deadline;
        if (spentOf(error) || call.signal?.aborted || expired) throw error;
      } finally {
        deployment.inFlight--;
      }
    }
    throw lastError ?? this.allCoolingDown();
  }

  /** The next deployment to try, by the strategy, among those not tried in this call. */
  private next(tried: Set<Live>): Live | undefined {
    const now = this.now();
    const untried = this.live.filter((d) => !tried.has(d));
    const available = untried.filter((d) => d.cooldownUntil <= now);
    if (available.length > 0) return this.pick(available);
    // Every deployment is cooling down: the fallbacks take the call, or, with none, the one cooling longest.
    if (this.options.model.fallback?.length) return undefined;
    return untried.sort((a, b) => a.cooldownUntil - b.cooldownUntil)[0];
  }

  private pick(candidates: Live[]): Live {
    if (this.options.strategy === 'least-busy') {
      const least = Math.min(...candidates.map((d) => d.inFlight));
      return this.weighted(candidates.filter((d) => d.inFlight === least));
    }
    if (this.options.strategy === 'latency') {
      const unmeasured = candidates.filter((d) => d.latencyMs === undefined);
      if (unmeasured.length > 0) return this.weighted(unmeasured);
      const fastest = Math.min(...candidates.map((d) => d.latencyMs!));
      return this.weighted(candidates.filter((d) => d.latencyMs === fastest));
    }
    return this.weighted(candidates);
  }

  /** At random, in proportion to the weights. */
  private weighted(candidates: Live[]): Live {
    const total = candidates.reduce((sum, d) => sum + d.spec.weight, 0);
    let point = this.random() * total;
    for (const d of candidates) {
      point -= d.spec.weight;
      if (point < 0) return d;
    }
    return candidates[candidates.length - 1]!;
  }

  private observe(deployment: Live, ms: number): void {
    deployment.latencyMs =
      deployment.latencyMs === undefined
        ? ms
        : deployment.latencyMs + LATENCY_ALPHA * (ms - deployment.latencyMs);
  }

  private fail(deployment: Live): void {
    deployment.failures++;
    deployment.cooldownUntil = this.now() + this.options.cooldownMs;
    this.count(deployment, 'failed');
    deploymentCooldowns.inc({ model: this.modelId, deployment: deployment.spec.id });
  }

  private count(deployment: Live, outcome: 'succeeded' | 'failed' | 'refused'): void {
    deploymentCalls.inc({ model: this.modelId, deployment: deployment.spec.id, outcome });
  }

  private allCoolingDown(): AppError {
    return new AppError(
      'upstream_error',
      `model ${this.modelId}: every deployment is cooling down after failures`,
      [{ reason: 'every deployment is cooling down', model: this.modelId }],
    );
  }

  /** Stops reporting this pool's metrics (the registry closed). */
  close(): Promise<void> {
    pools.delete(this);
    return Promise.resolve();
  }
}

/** A chat model over a deployment pool, reporting the pool's state (ListModels). */
export class PooledChatModel extends ChatModel {
  constructor(
    info: ModelInfo,
    private readonly pool: DeploymentPool,
  ) {
    super(info, pool, pool);
  }

  get routing(): RoutingStrategy {
    return this.pool.strategy;
  }

  deployments(): DeploymentView[] {
    return this.pool.views();
  }
}

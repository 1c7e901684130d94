import {
  BrokenCircuitError,
  circuitBreaker,
  ConsecutiveBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { Gauge, Registry } from 'prom-client';
import { AppError } from '../errors/app-error';

/** The shared infrastructure a process may depend on. */
export type DependencyName = 'redis' | 'mongodb' | 'kafka';

/** What a client answers while its dependency is down: 503 unavailable with Retry-After. */
export const OUTAGE_RETRY_AFTER_SECONDS = 1;

/**
 * A call failed because a shared dependency is down (or its breaker is open): an AppError, so it
 * reaches the caller as 503 `unavailable` with Retry-After through every path that carries
 * AppErrors (gRPC trailers, the gateway's error body). The cause is kept for the log.
 */
export class DependencyUnavailableError extends AppError {
  constructor(
    readonly dependency: DependencyName,
    cause?: unknown,
  ) {
    super(
      'unavailable',
      `${dependency} is unavailable; retry shortly`,
      [{ reason: `${dependency} is unavailable`, dependency }],
      OUTAGE_RETRY_AFTER_SECONDS,
    );
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * Whether an error from a driver means its server cannot be reached (as opposed to a refused
 * command): the MongoDB driver's own error classes, and the bare socket errors it lets through
 * (isDriverSocketError). Redis and Kafka errors are classified where their clients are used
 * (redis-shared-state.ts, kafka-event-bus.ts), which throw DependencyUnavailableError
 * themselves. An AppError raised because of an outage (its `cause`) is that outage too: "usage
 * could not be recorded" because Kafka and MongoDB were both down is an outage, not a defect.
 */
export function outageOf(error: unknown, depth = 0): DependencyName | undefined {
  const own = directOutageOf(error);
  if (own !== undefined || depth >= 5 || !(error instanceof AppError)) return own;
  return error.cause === undefined ? undefined : outageOf(error.cause, depth + 1);
}

function directOutageOf(error: unknown): DependencyName | undefined {
  if (error instanceof DependencyUnavailableError) return error.dependency;
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    isWrappedMongoOutage(error) ||
    isServerUnavailable(error) ||
    isDriverSocketError(error)
  )
    return 'mongodb';
  return undefined;
}

/** Node's socket error codes of a connection the other side dropped or refused. */
const DROPPED_CONNECTION_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
]);

/**
 * A bare Node socket error (not wrapped in a client's error class). The MongoDB driver lets one
 * through when the server drops a connection a command is being written to (Connection
 * writeCommand waits for 'drain' and rejects with the socket's own EPIPE or ECONNRESET): seen as
 * a 500 while MongoDB stopped. It is the only client here that does: the Redis and Kafka clients
 * and HTTP clients (model providers, webhooks) wrap theirs, and cause chains are followed from
 * AppErrors only.
 */
function isDriverSocketError(error: unknown): boolean {
  if (!(error instanceof Error) || error.constructor !== Error) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && DROPPED_CONNECTION_CODES.has(code);
}

/**
 * Codes a server answers while it cannot serve (shutting down, interrupted, not primary): the
 * driver's own "node is recovering / not primary" set. A server stopping or starting answers
 * them before the connection drops, so they are an outage, not a refused command.
 */
const SERVER_UNAVAILABLE_CODES = new Set([91, 11600, 11602, 189, 10107, 13435, 13436]);

function isServerUnavailable(error: unknown): boolean {
  return (
    error instanceof MongoServerError &&
    typeof error.code === 'number' &&
    SERVER_UNAVAILABLE_CODES.has(error.code)
  );
}

/**
 * A bulk write that failed on the network or on server selection is thrown as a
 * MongoBulkWriteError with no write errors, carrying the original error's own fields (a network
 * error's beforeHandshake, a selection error's reason): the driver's wrapping, told apart by them.
 */
function isWrappedMongoOutage(error: unknown): boolean {
  if (!(error instanceof MongoBulkWriteError) || [error.writeErrors].flat().length > 0)
    return false;
  // A bulk write over a dropped connection carries the socket's code (e.g. EPIPE) as its own.
  const code: unknown = error.code;
  return (
    'beforeHandshake' in error ||
    'reason' in error ||
    (typeof code === 'string' && DROPPED_CONNECTION_CODES.has(code))
  );
}

/** The error a caller should see for a failure that is an outage, else undefined. */
export function outageAppError(error: unknown): AppError | undefined {
  if (error instanceof DependencyUnavailableError) return error;
  const dependency = outageOf(error);
  return dependency === undefined ? undefined : new DependencyUnavailableError(dependency, error);
}

/** Dependency metrics of this process (served on /metrics with the others). */
export const dependencyMetrics = new Registry();

const dependencyUp = new Gauge({
  name: 'switchyard_dependency_up',
  help: 'Whether a shared dependency (redis, mongodb, kafka) answered at last contact (1) or not (0).',
  labelNames: ['dependency'],
  registers: [dependencyMetrics],
});

/** One client's view of its dependency: it reports up or down until it is closed. */
export interface DependencyProbe {
  report(up: boolean): void;
  /** The client closed: its view no longer counts. */
  close(): void;
}

/**
 * What this process knows of its dependencies: each client (a Redis connection, a MongoDB
 * client, a Kafka bus) reports up or down as it sees them (connection events, heartbeats, failed
 * or successful commands) through its probe. A dependency is down while any open client of it
 * last saw it down. Only dependencies in use appear (embedded mode uses none).
 */
class DependencyHealth {
  private readonly probes = new Map<DependencyName, Map<object, boolean>>();
  private readonly listeners = new Set<(dependency: DependencyName, up?: boolean) => void>();

  /**
   * Calls listener with each dependency's state now and on every change (up undefined: no
   * longer in use). Returns the unsubscribe function.
   */
  watch(listener: (dependency: DependencyName, up?: boolean) => void): () => void {
    this.listeners.add(listener);
    for (const dependency of this.probes.keys()) listener(dependency, this.isUp(dependency));
    return () => this.listeners.delete(listener);
  }

  probe(dependency: DependencyName): DependencyProbe {
    const token = {};
    const views = this.probes.get(dependency) ?? new Map<object, boolean>();
    this.probes.set(dependency, views);
    views.set(token, true);
    this.publish(dependency);
    return {
      report: (up) => {
        if (!views.has(token) || views.get(token) === up) return;
        views.set(token, up);
        this.publish(dependency);
      },
      close: () => {
        views.delete(token);
        this.publish(dependency);
      },
    };
  }

  /** 'up' or 'down' per dependency in use. */
  status(): Partial<Record<DependencyName, 'up' | 'down'>> {
    const status: Partial<Record<DependencyName, 'up' | 'down'>> = {};
    for (const dependency of this.probes.keys()) {
      const up = this.isUp(dependency);
      if (up !== undefined) status[dependency] = up ? 'up' : 'down';
    }
    return status;
  }

  private isUp(dependency: DependencyName): boolean | undefined {
    const views = this.probes.get(dependency);
    if (!views || views.size === 0) return undefined;
    return [...views.values()].every(Boolean);
  }

  private publish(dependency: DependencyName): void {
    const up = this.isUp(dependency);
    if (up === undefined) dependencyUp.remove({ dependency });
    else dependencyUp.set({ dependency }, up ? 1 : 0);
    for (const listener of this.listeners) listener(dependency, up);
  }
}

export const dependencyHealth = new DependencyHealth();

/**
 * The grpc.health.v1 name under which a service reports one of its dependencies (SERVING while
 * up), so a caller's readiness can say which service sees which dependency down.
 */
export function dependencyHealthName(dependency: DependencyName): string {
  return `switchyard.dependency.${dependency}`;
}

export const DEPENDENCY_NAMES: readonly DependencyName[] = ['redis', 'mongodb', 'kafka'];

/** After this many outage failures in a row a dependency's breaker opens (by default). */
const FAILURES_TO_OPEN = 3;
/** An open breaker lets one call through (half-open) after this long. */
const HALF_OPEN_AFTER_MS = 1000;

/**
 * Calls to one dependency through a circuit breaker (cockatiel): outage failures in a row open it,
 * and while it is open calls fail at once with DependencyUnavailableError instead of each waiting
 * for its own timeout; after HALF_OPEN_AFTER_MS one call tries again and closes it on success.
 * isOutage tells an outage (connection lost, timeout) from a refused command, which neither
 * counts nor is converted.
 */
export class DependencyGuard {
  private readonly breaker: CircuitBreakerPolicy;

  constructor(
    readonly dependency: DependencyName,
    private readonly isOutage: (error: unknown) => boolean,
    /** Where successes and outages are reported (the client's probe). */
    private readonly health?: DependencyProbe,
    failuresToOpen = FAILURES_TO_OPEN,
  ) {
    this.breaker = circuitBreaker(handleWhen(isOutage), {
      halfOpenAfter: HALF_OPEN_AFTER_MS,
      breaker: new ConsecutiveBreaker(failuresToOpen),
    });
  }

  async run<T>(operation: () => Promise<T>): Promise<T> {
    try {
      const result = await this.breaker.execute(operation);
      this.health?.report(true);
      return result;
    } catch (error) {
      if (error instanceof BrokenCircuitError || this.isOutage(error)) {
        this.health?.report(false);
        throw new DependencyUnavailableError(this.dependency, error);
      }
      throw error;
    }
  }
}

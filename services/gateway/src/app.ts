import Koa from 'koa';
import { Registry } from 'prom-client';
import {
  checkHealth,
  createInMemorySharedState,
  UrlPolicy,
  urlPolicyOptionsFromEnv,
  type DependencyName,
  type EventPublisher,
  type Logger,
  type SharedState,
  newId,
  UsagePublisher,
  UsageRoutes,
} from '@switchyard/shared';
import { Accounts } from './accounts/accounts';
import { notificationPolicyPusher, type PolicyPusher } from './accounts/policy';
import type { GatewayClients } from './clients';
import {
  DEFAULT_KEY_MAX_CONCURRENT_REQUESTS,
  DEFAULT_RESPONSE_CACHE_MAX_BYTES,
  DEFAULT_RESPONSE_CACHE_MAX_ENTRIES,
  type GatewayConfig,
} from './config';
import { IdempotencyGuard } from './idempotency/guard';
import { Metering } from './metering/metering';
import { BudgetGuard, costUnits, type BudgetSpent } from './metering/budgets';
import { Teams } from './accounts/teams';
import { BudgetThresholdNotices } from './events/budget-thresholds';
import { ModelCatalog, systemCall } from './metering/model-catalog';
import { QuotaGuard, type UsedTokens } from './metering/quota';
import { QuotaExhaustedNotices } from './events/quota-exhausted';
import { RefusalCounts } from './metering/refusals';
import { KeyRateLimits } from './metering/rate-limits';
import { keyConcurrencyLimit } from './middleware/concurrency';
import { errorHandler } from './middleware/errors';
import { createHttpMetrics, observe } from './middleware/metrics';
import { requestId, type GatewayState } from './middleware/request-id';
import { traceRequests } from './middleware/tracing';
import { buildOpenApi } from './openapi';
import { routeTable } from './routes';
import type { RouteDeps } from './routes/types';
import { DurableQuota } from './metering/durable-quota';
import { CounterSettlements } from './metering/settlements';
import type { ChangeFeed } from './events/change-feed';
import { DefaultResultUrls } from './read-models/default-result-url';
import { KeyLookup } from './read-models/key-lookup';
import { OrganizationDirectory } from './read-models/organization-directory';
import { buildRouter, exactRoutes, unmatched } from './routing';
import {
  InMemoryOrganizationStore,
  InMemoryQuotaTallyStore,
  InMemoryTeamStore,
  type ApiKeyStore,
  type OrganizationStore,
  type TeamStore,
} from './store';
import { serveConsole } from './console/serve-console';
import { ResponseCache } from './cache/response-cache';
import { InMemoryResponseCacheStore } from './store/response-cache/memory';
import type { ResponseCacheStore } from './store/response-cache/port';

/** Settings createGatewayApp reads; the accounts ones default to the documented env defaults. */
export type GatewayAppConfig = Pick<GatewayConfig, 'bodyLimitBytes'> &
  Partial<
    Pick<
      GatewayConfig,
      | 'adminToken'
      | 'keyCacheTtlMs'
      | 'defaultRequestsPerMinute'
      | 'defaultTokensPerMinute'
      | 'defaultOutputTokens'
      | 'grpcDeadlineMs'
      | 'idempotencyTtlSeconds'
      | 'idempotencyLeaseMs'
      | 'urlPolicy'
      | 'keyMaxConcurrentRequests'
    >
  > & {
    /** The built console served at /console (default: the one `npm run build` makes). */
    consoleDir?: string;
  };

export interface GatewayAppDeps {
  config: GatewayAppConfig;
  logger: Logger;
  clients: GatewayClients;
  apiKeys: ApiKeyStore;
  /** Default: a fresh in-memory store. */
  organizations?: OrganizationStore;
  /** Default: a fresh in-memory store. */
  teams?: TeamStore;
  /** Hard-quota reservations kept durably (the store's tallies); in memory by default. */
  durableQuota?: DurableQuota;
  /** Quota counters, rate limits and Idempotency-Keys; default: in-memory (one replica). Replicas share one. */
  sharedState?: SharedState;
  /** Settlements of this replica's counters, batched (closed by its owner); default: one on sharedState. */
  settlements?: CounterSettlements;
  /** Default: notification.PutOrganizationPolicy. */
  pushPolicy?: PolicyPusher;
  /** Defaults to shared checkHealth (grpc.health.v1). */
  checkHealth?: (address: string, service: string) => Promise<string>;
  /** Checks webhookUrl at acceptance; default: config.urlPolicy (or the distributed defaults) with system DNS. */
  urlPolicy?: UrlPolicy;
  /** How long "has a default result URL" is cached per organization (default 5 s, 60 s with a change feed; tests use 0). */
  defaultResultUrlCacheMs?: number;
  /**
   * Changes the caches follow (webhooks, organization policy and keys), so that they can be kept
   * long and no request waits on a lookup another replica's change made stale.
   */
  changes?: ChangeFeed;
  /** Metrics of services sharing this process (embedded mode), served on /metrics too. */
  metricsRegistries?: Registry[];
  /** Where the gateway's own events go (usage.quota_exhausted, usage.refused); none: they are not sent. */
  events?: EventPublisher;
  /** Counts of refused calls on their way to the ledger (closed by its owner); default: one on `events`. */
  refusals?: RefusalCounts;
  /** What /readyz reports of the shared dependencies; default none (startGateway: this process's). */
  dependencies?: () => Partial<Record<DependencyName, 'up' | 'down'>>;
  /** The clock of key expiry and quota months (tests move it). */
  now?: () => Date;
  /** Where the response cache keeps answers; default: in memory with the default bounds. */
  responseCache?: ResponseCacheStore;
}

/** With a change feed, cached policies and default result URLs are refreshed by events; this only bounds a missed one. */
const CACHE_TTL_WITH_CHANGE_FEED_MS = 60_000;

/**
 * Errors after the response started (the middleware answers all others): a client leaving an
 * event stream early is routine, anything else is logged.
 */
function responseFailed(logger: Logger) {
  return (error: NodeJS.ErrnoException, ctx?: Koa.Context) => {
    const requestId = (ctx?.state as GatewayState | undefined)?.requestId;
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE')
      logger.debug({ requestId }, 'client closed the response early');
    else logger.warn({ err: error, requestId }, 'response failed after it started');
  };
}

/** Seeds quota counters from the usage ledger: the tokens notification recorded for the period. */
function ledgerUsedTokens(clients: GatewayClients): UsedTokens {
  return async (organization, period) => {
    const report = await clients.notification.getUsage(
      { period, days: 1 },
      { organization, keyId: '', requestId: `req_quota_seed_${period}` },
    );
    return report.used;
  };
}

/** Rebuilds budget counters from the usage ledger: what notification counted in the budget's days so far. */
function ledgerBudgetSpent(clients: GatewayClients): BudgetSpent {
  return async (ref, lastDay) => {
    const { owner } = ref;
    const spend = await clients.notification.getBudgetSpend(
      {
        level: owner.level,
        id: owner.id,
        end_user: owner.endUser ?? '',
        from_day: ref.period.start.toISOString().slice(0, 10),
        to_day: lastDay.toISOString().slice(0, 10),
      },
      { organization: owner.organization, keyId: '', requestId: newId('req') },
    );
    // The ledger keeps cost in billionths; budget counters in millionths (rounded up).
    return ref.metric === 'tokens'
      ? Number(spend.tokens)
      : costUnits(Number(spend.cost_nanos) / 1e9);
  };
}

interface AccountsParts {
  keys: KeyLookup;
  accounts: Accounts;
  metering: Metering;
  organizations: OrganizationDirectory;
  teams: Teams;
}

function accountsParts(
  deps: GatewayAppDeps,
  state: SharedState,
  catalog: ModelCatalog,
  settlements: CounterSettlements,
): AccountsParts {
  const { config, logger, changes } = deps;
  const ttlMs = config.keyCacheTtlMs ?? 2000;
  const defaults = {
    requestsPerMinute: config.defaultRequestsPerMinute ?? 600,
    tokensPerMinute: config.defaultTokensPerMinute ?? 200_000,
  };
  const organizations = deps.organizations ?? new InMemoryOrganizationStore();
  // Keys keep their short TTL even with events: it bounds how long a revoked key can work if one is missed.
  const keys = new KeyLookup(deps.apiKeys, ttlMs);
  const directory = new OrganizationDirectory(
    organizations,
    defaults,
    changes && ttlMs > 0 ? CACHE_TTL_WITH_CHANGE_FEED_MS : ttlMs,
  );
  // Teams keep the keys' short TTL: a team's changed budget reaches every replica within it.
  const teams = new Teams({
    teams: deps.teams ?? new InMemoryTeamStore(),
    apiKeys: deps.apiKeys,
    logger,
    cacheTtlMs: ttlMs,
  });
  const accounts = new Accounts({
    checkTeam: (organization, teamId) => teams.checkMembership(organization, teamId),
    organizations,
    apiKeys: deps.apiKeys,
    keyLookup: keys,
    pushPolicy: deps.pushPolicy ?? notificationPolicyPusher(deps.clients.notification),
    defaultRateLimits: defaults,
    logger,
    organizationChanged: (id) => {
      directory.changed(id, 'policy');
      void changes?.organizationChanged(id, 'policy');
    },
    keysChanged: (organization) => void changes?.organizationChanged(organization, 'keys'),
    modelNames: async () => {
      const { models } = await deps.clients.content.listModels({}, systemCall());
      return models.flatMap((m) => [m.id, ...m.aliases]);
    },
  });
  const exhausted = deps.events && new QuotaExhaustedNotices(deps.events, logger);
  const budgetNotices =
    deps.events &&
    new BudgetThresholdNotices({
      bus: deps.events,
      counters: state.counters,
      logger,
      now: () => deps.now?.() ?? new Date(),
    });
  const metering = new Metering({
    directory,
    state,
    settlements,
    quota: new QuotaGuard({
      state,
      now: deps.now,
      usedTokens: ledgerUsedTokens(deps.clients),
      durable: deps.durableQuota ?? new DurableQuota(new InMemoryQuotaTallyStore()),
      logger,
      onExhausted: exhausted && ((...args) => exhausted.refused(...args)),
    }),
    budgets: new BudgetGuard({
      state,
      spent: ledgerBudgetSpent(deps.clients),
      logger,
      now: deps.now,
      onCounted: budgetNotices && ((...args) => budgetNotices.counted(...args)),
      onExceeded: budgetNotices && ((...args) => budgetNotices.exceeded(...args)),
    }),
    teamOf: (organization, teamId) => teams.teamOf(organization, teamId),
    prices: catalog,
    rateLimits: new KeyRateLimits(state.rateLimiter),
    defaultOutputTokens: config.defaultOutputTokens ?? 256,
    logger,
    refusals: deps.refusals ?? (deps.events && new RefusalCounts(deps.events, logger)),
  });
  return { keys, accounts, metering, organizations: directory, teams };
}

/**
 * The lease on a key in flight is renewed while the attempt runs (IDEMPOTENCY_LEASE_MS); the
 * "pending" record only has to outlive an attempt: at most two downstream calls in a row (e.g.
 * ListWebhooks for the default result URL, then SubmitGenerate), each bounded by the deadline.
 */
function idempotencyGuard(deps: GatewayAppDeps, state: SharedState): IdempotencyGuard {
  const deadlineMs = deps.config.grpcDeadlineMs ?? 30_000;
  return new IdempotencyGuard({
    state,
    ttlSeconds: deps.config.idempotencyTtlSeconds ?? 86_400,
    leaseMs: deps.config.idempotencyLeaseMs ?? 3000,
    pendingTtlMs: Math.ceil(2 * deadlineMs + 5000),
    logger: deps.logger,
  });
}

/** "Has a default result URL" per organization, forgotten when notification reports a webhook change. */
function defaultResultUrls(deps: GatewayAppDeps): DefaultResultUrls {
  const ttlMs =
    deps.defaultResultUrlCacheMs ?? (deps.changes ? CACHE_TTL_WITH_CHANGE_FEED_MS : undefined);
  return new DefaultResultUrls(deps.clients.notification, deps.logger, ttlMs);
}

/** The Koa app without a listener (tests mount it on port 0). */
export function createGatewayApp(deps: GatewayAppDeps): Koa<GatewayState> {
  const metrics = createHttpMetrics();
  const openapi = buildOpenApi(routeTable);
  const state = deps.sharedState ?? createInMemorySharedState();
  // One read model of the registry for the prices budgets reserve by and the names answers are cached by.
  const catalog = new ModelCatalog(
    async () => (await deps.clients.content.listModels({}, systemCall())).models,
  );
  const settlements = deps.settlements ?? new CounterSettlements(state.counters, deps.logger);
  const { keys, accounts, metering, organizations, teams } = accountsParts(
    deps,
    state,
    catalog,
    settlements,
  );
  const responseCache = new ResponseCache({
    store:
      deps.responseCache ??
      new InMemoryResponseCacheStore({
        maxEntries: DEFAULT_RESPONSE_CACHE_MAX_ENTRIES,
        maxBytes: DEFAULT_RESPONSE_CACHE_MAX_BYTES,
      }),
    models: catalog,
    counters: state.counters,
    policies: organizations,
    embed: async (text, call) => {
      const response = await deps.clients.content.embed(
        { model: '', inputs: [text], route: UsageRoutes.cacheEmbeddings },
        call,
      );
      const values = response.embeddings[0]?.values;
      return values ? Float32Array.from(values) : undefined;
    },
    usage: deps.events && new UsagePublisher(deps.events, 'gateway', deps.logger),
    logger: deps.logger,
    now: () => (deps.now?.() ?? new Date()).getTime(),
  });
  const resultUrls = defaultResultUrls(deps);
  // Every read model forgets what a change made stale, whichever replica made it.
  deps.changes?.follow(keys, organizations, resultUrls);
  const routeDeps: RouteDeps = {
    clients: deps.clients,
    logger: deps.logger,
    checkHealth: deps.checkHealth ?? ((address, service) => checkHealth(address, service)),
    metrics: deps.metricsRegistries?.length
      ? Registry.merge([metrics.registry, ...deps.metricsRegistries])
      : metrics.registry,
    defaultResultUrls: resultUrls,
    openapi: () => openapi,
    accounts,
    teams,
    metering,
    responseCache,
    organizations,
    urlPolicy:
      deps.urlPolicy ?? new UrlPolicy(deps.config.urlPolicy ?? urlPolicyOptionsFromEnv({})),
    dependencies: deps.dependencies ?? (() => ({})),
  };
  const router = buildRouter(
    routeTable,
    routeDeps,
    { keys, adminToken: deps.config.adminToken, now: () => (deps.now?.() ?? new Date()).getTime() },
    {
      bodyLimitBytes: deps.config.bodyLimitBytes,
      keyConcurrency: keyConcurrencyLimit(
        deps.config.keyMaxConcurrentRequests ?? DEFAULT_KEY_MAX_CONCURRENT_REQUESTS,
      ) as Koa.Middleware,
      idempotency: idempotencyGuard(deps, state),
    },
  );
  const app = new Koa<GatewayState>({ proxy: false });
  app.on('error', responseFailed(deps.logger));
  app.use(traceRequests());
  app.use(requestId());
  app.use(observe(metrics, deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(serveConsole(deps.config.consoleDir));
  app.use(exactRoutes(router));
  app.use(router.routes() as unknown as Koa.Middleware<GatewayState>);
  app.use(unmatched(router));
  return app;
}

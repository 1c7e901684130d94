import { AppError, type CallContext } from '@switchyard/shared';
import type {
  Delivery__Output,
  RotateSecretResponse__Output,
  Webhook__Output,
} from '@switchyard/shared/proto/notification/v1';
import {
  Delivery,
  DeliveryList,
  DeliveryStats,
  DeliveryStatsQuery,
  ListDeliveriesQuery,
  RecoverRequest,
  Recovered,
  RegisteredWebhook,
  ReplayDeliveriesRequest,
  ReplayedDeliveries,
  SendTestEventRequest,
  RegisterWebhookRequest,
  RotatedSecret,
  RotateSecretRequest,
  SigningSecret,
  UpdateWebhookRequest,
  Webhook,
  WebhookList,
  registeredEvents,
  type DeliveriesQuery,
  type DeliveryStatsQuery as StatsQuery,
  type RecoverBody,
  type ReplayDeliveriesBody,
  type SendTestEventBody,
  type RegisterWebhookBody,
  type RotateSecretBody,
  type UpdateWebhookBody,
} from '../schemas/webhooks';
import { json, type AnyRoute, type RouteSpec } from './types';
import { orNull } from './proto-values';

function webhookView(webhook: Webhook__Output) {
  return {
    id: webhook.id,
    event: webhook.events[0] ?? '',
    events: webhook.events,
    url: webhook.url,
    enabled: webhook.enabled,
    createdAt: webhook.created_at,
    updatedAt: webhook.updated_at,
    disabledReason: orNull(webhook.disabled_reason),
    failingSince: orNull(webhook.failing_since),
    rateLimit: webhook.rate_limit || null,
    ...(webhook.filter_json && { filter: JSON.parse(webhook.filter_json) as object }),
  };
}

function deliveryView(delivery: Delivery__Output) {
  return {
    id: delivery.id,
    webhookId: delivery.webhook_id,
    eventId: delivery.event_id,
    event: delivery.event,
    status: delivery.status,
    state: delivery.state,
    cancelledAt: orNull(delivery.cancelled_at),
    url: delivery.url,
    createdAt: delivery.created_at,
    nextAttemptAt: orNull(delivery.next_attempt_at),
    attempts: delivery.attempts.map((a) => ({
      attemptedAt: a.attempted_at,
      statusCode: a.status_code || null,
      durationMs: a.duration_ms,
      responseBody: a.response_body,
      error: orNull(a.error),
    })),
    payload: delivery.payload,
  };
}

function rotatedView(rotated: RotateSecretResponse__Output) {
  return {
    secret: rotated.secret,
    previousSecretExpiresAt: orNull(rotated.previous_secret_expires_at),
  };
}

const webhookPath = '/api/webhooks/:id';
const base = { tag: 'webhooks', auth: true } as const;

const register: RouteSpec<RegisterWebhookBody> = {
  ...base,
  method: 'POST',
  path: '/api/webhooks',
  operationId: 'registerWebhook',
  idempotent: true,
  credentialFields: ['secret'],
  summary: 'Register a URL for one event or several; the signing secret is returned only here',
  description:
    'The secret is in the first answer only: a replay with the same Idempotency-Key answers the webhook without it ' +
    '(the secret is never stored with the replayable answer); if that first answer was lost, rotate the secret.',
  requestSchema: RegisterWebhookRequest,
  responses: { 201: { description: 'Registered', schema: RegisteredWebhook } },
  errors: ['conflict'],
  async handle({ body, call }, deps) {
    const registered = await deps.clients.notification.registerWebhook(
      {
        events: registeredEvents(body),
        url: body.url,
        secret: body.secret ?? '',
        ...(body.filter && { filter_json: JSON.stringify(body.filter) }),
        rate_limit: body.rateLimit ?? 0,
      },
      call,
    );
    deps.defaultResultUrls.changed(call.organization, 'webhooks');
    if (!registered.webhook)
      throw new AppError('internal', 'notification service answered without the webhook');
    return json(201, { ...webhookView(registered.webhook), secret: registered.secret });
  },
};

const list: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/webhooks',
  operationId: 'listWebhooks',
  summary: "List the organization's webhooks",
  responses: { 200: { description: 'Webhooks', schema: WebhookList } },
  async handle({ call }, deps) {
    return json(200, {
      webhooks: (await deps.clients.notification.listWebhooks({}, call)).webhooks.map(webhookView),
    });
  },
};

/* The signing-secret routes come before /:id so that "signing-secret" is never taken for an id. */
const getSigningSecret: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/webhooks/signing-secret',
  operationId: 'getSigningSecret',
  summary: "The organization's secret that signs webhookUrl result callbacks",
  responses: { 200: { description: 'The current secret', schema: SigningSecret } },
  async handle({ call }, deps) {
    const secret = await deps.clients.notification.getSigningSecret({}, call);
    return json(200, { secret: secret.secret, createdAt: secret.created_at });
  },
};

const rotateSigningSecret: RouteSpec<RotateSecretBody> = {
  ...base,
  method: 'POST',
  path: '/api/webhooks/signing-secret/rotate',
  operationId: 'rotateSigningSecret',
  summary:
    "Replace the organization's signing secret; the old one keeps signing for overlapSeconds",
  requestSchema: RotateSecretRequest,
  responses: { 200: { description: 'The new secret', schema: RotatedSecret } },
  async handle({ body, call }, deps) {
    return json(
      200,
      rotatedView(
        await deps.clients.notification.rotateSigningSecret(
          { overlap_seconds: body.overlapSeconds },
          call,
        ),
      ),
    );
  },
};

const get: RouteSpec = {
  ...base,
  method: 'GET',
  path: webhookPath,
  operationId: 'getWebhook',
  summary: 'Read one webhook',
  responses: { 200: { description: 'The webhook', schema: Webhook } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      webhookView(await deps.clients.notification.getWebhook({ id: params.id }, call)),
    );
  },
};

const update: RouteSpec<UpdateWebhookBody> = {
  ...base,
  method: 'PATCH',
  path: webhookPath,
  operationId: 'updateWebhook',
  summary: 'Change the URL, events, filter, rate limit or enabled flag of a webhook',
  requestSchema: UpdateWebhookRequest,
  responses: { 200: { description: 'The updated webhook', schema: Webhook } },
  errors: ['not_found'],
  async handle({ params, body, call }, deps) {
    const updated = await deps.clients.notification.updateWebhook(
      {
        id: params.id,
        url: body.url,
        events: body.events ?? [],
        events_set: body.events !== undefined,
        enabled: body.enabled,
        filter_json: body.filter && JSON.stringify(body.filter),
        rate_limit: body.rateLimit === undefined ? undefined : (body.rateLimit ?? 0),
      },
      call,
    );
    deps.defaultResultUrls.changed(call.organization, 'webhooks');
    return json(200, webhookView(updated));
  },
};

const remove: RouteSpec = {
  ...base,
  method: 'DELETE',
  path: webhookPath,
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook',
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    const { deleted } = await deps.clients.notification.deleteWebhook({ id: params.id }, call);
    deps.defaultResultUrls.changed(call.organization, 'webhooks');
    if (!deleted) throw AppError.notFound(`webhook ${params.id} not found`);
    return { status: 204 };
  },
};

const rotateSecret: RouteSpec<RotateSecretBody> = {
  ...base,
  method: 'POST',
  path: `${webhookPath}/rotate-secret`,
  operationId: 'rotateWebhookSecret',
  summary: "Replace a webhook's secret; the old one keeps signing for overlapSeconds",
  requestSchema: RotateSecretRequest,
  responses: { 200: { description: 'The new secret', schema: RotatedSecret } },
  errors: ['not_found'],
  async handle({ params, body, call }, deps) {
    return json(
      200,
      rotatedView(
        await deps.clients.notification.rotateWebhookSecret(
          { id: params.id, overlap_seconds: body.overlapSeconds },
          call,
        ),
      ),
    );
  },
};

const deliveries: RouteSpec<unknown, DeliveriesQuery> = {
  ...base,
  method: 'GET',
  path: `${webhookPath}/deliveries`,
  operationId: 'listWebhookDeliveries',
  summary:
    'Recent deliveries of a webhook with every attempt and the payload sent, newest first; filtered by state, event type, event id or creation time',
  querySchema: ListDeliveriesQuery,
  responses: { 200: { description: 'Deliveries', schema: DeliveryList } },
  errors: ['not_found'],
  async handle({ params, query, call }, deps) {
    const { deliveries: found } = await deps.clients.notification.listDeliveries(
      {
        webhook_id: params.id,
        limit: query.limit,
        event_id: query.eventId ?? '',
        status: query.status ?? '',
        event: query.event ?? '',
        state: query.state ?? '',
        since: query.since ?? '',
        until: query.until ?? '',
      },
      call,
    );
    return json(200, { deliveries: found.map(deliveryView) });
  },
};

const replay: RouteSpec = {
  ...base,
  method: 'POST',
  path: `${webhookPath}/deliveries/:deliveryId/replay`,
  operationId: 'replayWebhookDelivery',
  summary: 'Send a past delivery again (same webhook-id, fresh signature)',
  responses: { 200: { description: 'The delivery, scheduled again', schema: Delivery } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      deliveryView(
        await deps.clients.notification.replayDelivery(
          { webhook_id: params.id, delivery_id: params.deliveryId },
          call,
        ),
      ),
    );
  },
};

const cancel: RouteSpec = {
  ...base,
  method: 'POST',
  path: `${webhookPath}/deliveries/:deliveryId/cancel`,
  operationId: 'cancelWebhookDelivery',
  summary:
    'Stop the retries of a pending delivery: it ends failed, state cancelled (409 once it finished)',
  responses: { 200: { description: 'The delivery, cancelled', schema: Delivery } },
  errors: ['not_found', 'conflict'],
  async handle({ params, call }, deps) {
    return json(
      200,
      deliveryView(
        await deps.clients.notification.cancelDelivery(
          { webhook_id: params.id, delivery_id: params.deliveryId },
          call,
        ),
      ),
    );
  },
};

const STATS_WINDOW_MS = 7 * 24 * 3600 * 1000;

const stats: RouteSpec<unknown, StatsQuery> = {
  ...base,
  method: 'GET',
  path: `${webhookPath}/stats`,
  operationId: 'getWebhookStats',
  summary:
    "How a webhook's deliveries created in a window stand, by state, and its success rate (default: the last 7 days)",
  querySchema: DeliveryStatsQuery,
  responses: { 200: { description: 'Counts by state', schema: DeliveryStats } },
  errors: ['not_found'],
  async handle({ params, query, call }, deps) {
    const until = query.until ? new Date(query.until) : new Date();
    const since = query.since ? new Date(query.since) : new Date(until.getTime() - STATS_WINDOW_MS);
    const counts = await deps.clients.notification.getDeliveryStats(
      { webhook_id: params.id, since: since.toISOString(), until: until.toISOString() },
      call,
    );
    const [pending, failing, succeeded, failed, cancelled] = [
      counts.pending,
      counts.failing,
      counts.succeeded,
      counts.failed,
      counts.cancelled,
    ].map(Number);
    const attempted = succeeded + failing + failed;
    return json(200, {
      since: since.toISOString(),
      until: until.toISOString(),
      pending,
      failing,
      succeeded,
      failed,
      cancelled,
      successRate: attempted ? succeeded / attempted : null,
    });
  },
};

/** Each id replayed on its own: one that cannot be (unknown, webhook disabled) is reported, the others go. */
async function replayEach(
  deps: Parameters<AnyRoute['handle']>[1],
  call: CallContext,
  webhookId: string,
  ids: string[],
) {
  const deliveries = [];
  const failed = [];
  for (const deliveryId of ids) {
    try {
      deliveries.push(
        deliveryView(
          await deps.clients.notification.replayDelivery(
            { webhook_id: webhookId, delivery_id: deliveryId },
            call,
          ),
        ),
      );
    } catch (error) {
      if (!(error instanceof AppError) || !['not_found', 'conflict'].includes(error.code))
        throw error;
      failed.push({ deliveryId, error: { code: error.code, message: error.message } });
    }
  }
  return { deliveries, failed };
}

const replayMany: RouteSpec<ReplayDeliveriesBody> = {
  ...base,
  method: 'POST',
  path: `${webhookPath}/deliveries/replay`,
  operationId: 'replayWebhookDeliveries',
  summary:
    'Send several past deliveries again (up to 50); those that cannot be are listed with why',
  requestSchema: ReplayDeliveriesRequest,
  responses: {
    200: { description: 'The new deliveries and the ids not replayed', schema: ReplayedDeliveries },
  },
  errors: ['not_found'],
  async handle({ params, body, call }, deps) {
    await deps.clients.notification.getWebhook({ id: params.id }, call);
    return json(200, await replayEach(deps, call, params.id, body.deliveryIds));
  },
};

const recover: RouteSpec<RecoverBody> = {
  ...base,
  method: 'POST',
  path: `${webhookPath}/recover`,
  operationId: 'recoverWebhook',
  summary: 'Send again every failed delivery since a time (each message once, oldest first)',
  description:
    'Each message of the webhook whose newest delivery created since `since` failed is replayed: a new delivery ' +
    'with the same body and webhook-id, signed afresh, to the current URL. Messages replayed since with success, ' +
    'or still being retried, are not sent again, so a repeat sends nothing twice. At most the newest 10,000 ' +
    'deliveries are looked at per call.',
  requestSchema: RecoverRequest,
  responses: { 200: { description: 'How many were sent again', schema: Recovered } },
  errors: ['not_found', 'conflict'],
  async handle({ params, body, call }, deps) {
    const { recovered } = await deps.clients.notification.recoverWebhook(
      { webhook_id: params.id, since: body.since },
      call,
    );
    return json(200, { recovered });
  },
};

const sendTest: RouteSpec<SendTestEventBody> = {
  ...base,
  method: 'POST',
  path: `${webhookPath}/test`,
  operationId: 'sendWebhookTestEvent',
  summary:
    'Send an example of one of the webhook\'s events to it now, signed and retried as usual (the body has "test": true)',
  requestSchema: SendTestEventRequest,
  responses: { 200: { description: 'The test delivery, as recorded', schema: Delivery } },
  errors: ['not_found', 'conflict'],
  async handle({ params, body, call }, deps) {
    return json(
      200,
      deliveryView(
        await deps.clients.notification.sendTestEvent(
          { webhook_id: params.id, event: body.event ?? '' },
          call,
        ),
      ),
    );
  },
};

export const webhookRoutes: AnyRoute[] = [
  register,
  list,
  getSigningSecret,
  rotateSigningSecret,
  get,
  update,
  remove,
  rotateSecret,
  deliveries,
  replayMany,
  replay,
  cancel,
  stats,
  recover,
  sendTest,
];

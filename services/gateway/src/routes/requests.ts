import { CALLBACK_TARGET, resultEventId, type CallContext } from '@switchyard/shared';
import type { AsyncRequest__Output } from '@switchyard/shared/proto/content/v1';
import type { Delivery__Output } from '@switchyard/shared/proto/notification/v1';
import { AsyncRequestStatus } from '../schemas/content';
import { json, type AnyRoute, type RouteDeps, type RouteSpec } from './types';

/** The result callback's state: pending (not yet delivered, retries ahead), delivered, or failed (retries exhausted). */
export interface CallbackDelivery {
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt?: string;
}

/** Over every delivery of the callback (replays included): one success is delivered; else any pending one is pending. */
export function callbackDelivery(deliveries: Delivery__Output[]): CallbackDelivery {
  const attempts = deliveries.reduce((sum, d) => sum + d.attempts.length, 0);
  if (deliveries.some((d) => d.status === 'succeeded')) return { state: 'delivered', attempts };
  const pending = deliveries.find((d) => d.status === 'pending');
  if (pending || deliveries.length === 0) {
    return {
      state: 'pending',
      attempts,
      ...(pending?.next_attempt_at ? { nextAttemptAt: pending.next_attempt_at } : {}),
    };
  }
  return { state: 'failed', attempts };
}

/** Only what the status makes meaningful: result and usage once completed, error once failed. */
function requestView(request: AsyncRequest__Output, delivery: CallbackDelivery | undefined) {
  // The interface: a request with a webhookUrl is processing until its callback is delivered (or given up).
  const status = delivery?.state === 'pending' ? 'processing' : request.status;
  return {
    requestId: request.request_id,
    status,
    operation: request.operation,
    createdAt: request.created_at,
    ...(request.completed_at && status !== 'processing'
      ? { completedAt: request.completed_at }
      : {}),
    ...(status === 'completed' ? { result: request.result } : {}),
    ...(request.model ? { model: request.model } : {}),
    ...(status === 'completed' ? { usage: { totalTokens: request.total_tokens } } : {}),
    ...(status === 'failed' && request.error && request.error.code
      ? { error: { code: request.error.code, message: request.error.message } }
      : {}),
    ...(delivery ? { delivery } : {}),
  };
}

/** The callback's delivery, once the work is done and when the request has a webhookUrl. */
async function deliveryOf(
  request: AsyncRequest__Output,
  deps: RouteDeps,
  call: CallContext,
): Promise<CallbackDelivery | undefined> {
  if (!request.webhook_url || request.status === 'processing') return undefined;
  const { deliveries } = await deps.clients.notification.listDeliveries(
    { webhook_id: CALLBACK_TARGET, limit: 20, event_id: resultEventId(request.request_id) },
    call,
  );
  return callbackDelivery(deliveries);
}

const getRequest: RouteSpec = {
  method: 'GET',
  path: '/api/v2/requests/:requestId',
  operationId: 'getRequest',
  summary: 'Status and result of an asynchronous request of the caller organization',
  description:
    'A request with a webhookUrl stays `processing` until its result callback is delivered; then `completed` or `failed`, ' +
    'with `delivery` telling the callback state (delivered, or failed once its retries are exhausted).',
  tag: 'requests',
  auth: true,
  responses: { 200: { description: 'The request', schema: AsyncRequestStatus } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    const request = await deps.clients.content.getRequest({ request_id: params.requestId }, call);
    return json(200, requestView(request, await deliveryOf(request, deps, call)));
  },
};

export const requestRoutes: AnyRoute[] = [getRequest];

import type { AsyncRequest__Output } from '@switchyard/shared/generated/switchyard/content/v1/AsyncRequest';
import { AsyncRequestStatus } from '../schemas/content';
import { json, type AnyRoute, type RouteSpec } from './types';

/** Only what the status makes meaningful: result and usage once completed, error once failed. */
function requestView(request: AsyncRequest__Output) {
  return {
    requestId: request.request_id,
    status: request.status,
    operation: request.operation,
    createdAt: request.created_at,
    ...(request.completed_at ? { completedAt: request.completed_at } : {}),
    ...(request.status === 'completed' ? { result: request.result } : {}),
    ...(request.model ? { model: request.model } : {}),
    ...(request.status === 'completed' ? { usage: { totalTokens: request.total_tokens } } : {}),
    ...(request.error && request.error.code ? { error: { code: request.error.code, message: request.error.message } } : {}),
  };
}

const getRequest: RouteSpec = {
  method: 'GET',
  path: '/api/v2/requests/:requestId',
  operationId: 'getRequest',
  summary: 'Status and result of an asynchronous request of the caller organization',
  tag: 'requests',
  auth: true,
  responses: { 200: { description: 'The request', schema: AsyncRequestStatus } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(200, requestView(await deps.clients.content.getRequest({ request_id: params.requestId }, call)));
  },
};

export const requestRoutes: AnyRoute[] = [getRequest];

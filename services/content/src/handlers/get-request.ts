import { AppError, type CallContext } from '@switchyard/shared';
import type { AsyncRequest, GetRequestRequest__Output } from '@switchyard/shared/proto/content/v1';
import type { AsyncRequestRecord } from '../store';
import type { HandlerDeps } from './deps';
import { requireText } from './validation';

export function toAsyncRequestMessage(record: AsyncRequestRecord): AsyncRequest {
  return {
    request_id: record.requestId,
    status: record.status,
    operation: record.operation,
    created_at: record.createdAt,
    completed_at: record.completedAt ?? '',
    result: record.result,
    model: record.model,
    total_tokens: record.totalTokens,
    error: record.error ?? null,
    webhook_url: record.webhookUrl,
  };
}

/** Another organization's request answers not_found, exactly like an unknown id. */
export async function getRequest(
  deps: HandlerDeps,
  request: GetRequestRequest__Output,
  context: CallContext,
): Promise<AsyncRequest> {
  const requestId = requireText(request.request_id, 'request_id').trim();
  const record = await deps.requests.get(context.organization, requestId);
  if (!record) throw AppError.notFound(`request ${requestId} not found`);
  return toAsyncRequestMessage(record);
}

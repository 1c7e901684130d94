import type { CallContext } from '@switchyard/shared';
import type {
  SubmitGenerateRequest__Output,
  SubmitGenerateResponse,
} from '@switchyard/shared/proto/content/v1';
import type { HandlerDeps } from './deps';
import { prepareGeneration } from './generate';
import { billableOnce } from './model-call';
import { requestIdOf, webhookUrlFrom } from './validation';

/**
 * Validates like Generate, records the request as processing and answers at once; the queue runs
 * it. A retried submit whose 202 was lost gets the first request id back: no second request, no
 * second bill.
 */
export function submitGenerate(
  deps: HandlerDeps,
  request: SubmitGenerateRequest__Output,
  context: CallContext,
): Promise<SubmitGenerateResponse> {
  return billableOnce(deps, context, 'SubmitGenerate', () => submit(deps, request, context));
}

async function submit(
  deps: HandlerDeps,
  request: SubmitGenerateRequest__Output,
  context: CallContext,
): Promise<SubmitGenerateResponse> {
  const requestId = requestIdOf(context);
  const prepared = await prepareGeneration(request.request ?? {}, deps, context);
  const webhookUrl = webhookUrlFrom(request.webhook_url);
  const record = {
    requestId,
    organization: context.organization,
    keyId: context.keyId,
    status: 'processing' as const,
    operation: 'generate' as const,
    createdAt: new Date().toISOString(),
    webhookUrl,
    model: prepared.model.info.id,
    input: prepared.input,
    result: '',
    totalTokens: 0,
  };
  deps.jobs.ensureAccepting();
  await deps.requests.create(record);
  deps.jobs.enqueue(() => deps.runner.run(record));
  return { status: 'processing', request_id: requestId };
}

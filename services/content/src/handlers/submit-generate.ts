import type { CallContext } from '@switchyard/shared';
import type { SubmitGenerateRequest__Output } from '@switchyard/shared/generated/switchyard/content/v1/SubmitGenerateRequest';
import type { SubmitGenerateResponse } from '@switchyard/shared/generated/switchyard/content/v1/SubmitGenerateResponse';
import type { JobQueue } from '../jobs/job-queue';
import type { GenerateJobRunner } from '../jobs/generate-job';
import type { RequestStore } from '../store/request-store';
import type { HandlerDeps } from './deps';
import { prepareGeneration } from './generate';
import { billableOnce } from './model-call';
import { requestIdOf, webhookUrlFrom } from './validation';

export interface SubmitDeps extends HandlerDeps {
  store: RequestStore;
  jobs: JobQueue;
  runner: GenerateJobRunner;
}

/** Validates like Generate, records the request as processing and answers at once; the queue runs it. */
export function createSubmitGenerateHandler(deps: SubmitDeps) {
  // A retried submit whose 202 was lost gets the first request id back: no second request, no second bill.
  return (
    request: SubmitGenerateRequest__Output,
    context: CallContext,
  ): Promise<SubmitGenerateResponse> =>
    billableOnce(deps, context, 'SubmitGenerate', () => submit(deps, request, context));
}

async function submit(
  deps: SubmitDeps,
  request: SubmitGenerateRequest__Output,
  context: CallContext,
): Promise<SubmitGenerateResponse> {
  const requestId = requestIdOf(context);
  const prepared = await prepareGeneration(request.request ?? {}, deps);
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
  await deps.store.create(record);
  deps.jobs.enqueue(() => deps.runner.run(record));
  return { status: 'processing', request_id: requestId };
}

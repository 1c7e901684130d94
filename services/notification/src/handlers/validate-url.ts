import type { CallContext } from '@switchyard/shared';
import type { ValidateUrlRequest__Output } from '@switchyard/shared/generated/switchyard/notification/v1/ValidateUrlRequest';
import type { ValidateUrlResponse } from '@switchyard/shared/generated/switchyard/notification/v1/ValidateUrlResponse';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

/** The gateway asks before accepting a generate with webhookUrl; a refusal is an answer, not an error. */
export async function validateUrl(deps: HandlerDeps, request: ValidateUrlRequest__Output, context: CallContext): Promise<ValidateUrlResponse> {
  organizationOf(context);
  if (!request.url) return { allowed: false, reason: 'url is required' };
  const check = await deps.policy.check(request.url);
  return check.allowed ? { allowed: true, reason: '' } : { allowed: false, reason: check.reason };
}

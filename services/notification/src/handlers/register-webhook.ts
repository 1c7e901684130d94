import { AppError, newId, type CallContext } from '@switchyard/shared';
import type {
  RegisterWebhookRequest__Output,
  RegisterWebhookResponse,
} from '@switchyard/shared/proto/notification/v1';
import type { WebhookRecord } from '../model';
import { generateSecret, isValidSecret } from '../signing/secrets';
import { parseFilter } from '../event-types/filter';
import { checkedRateLimit, checkedUrl, organizationOf, toWebhook, validateEvents } from './common';
import type { HandlerDeps } from './deps';

/** RegisterWebhook: the secret (caller-supplied or generated) is returned here only. */
export async function registerWebhook(
  deps: HandlerDeps,
  request: RegisterWebhookRequest__Output,
  context: CallContext,
): Promise<RegisterWebhookResponse> {
  const organization = organizationOf(context);
  const events = await validateEvents(deps.stores.eventTypes, organization, request.events);
  const filter = parseFilter(request.filter_json);
  const rateLimit = checkedRateLimit(request.rate_limit);
  if (request.secret && !isValidSecret(request.secret)) {
    throw AppError.invalid(
      'secret must be whsec_ followed by base64 of 24 to 32 bytes',
      '/secret',
      'invalid format',
    );
  }
  const url = await checkedUrl(deps.policy, request.url);
  const now = new Date().toISOString();
  const webhook: WebhookRecord = {
    id: newId('wh'),
    organization,
    events,
    ...(filter && { filter }),
    ...(rateLimit && { rateLimit }),
    url,
    enabled: true,
    disabledReason: '',
    createdAt: now,
    updatedAt: now,
    secret: request.secret || generateSecret(),
  };
  await deps.stores.webhooks.create(webhook);
  return { webhook: toWebhook(webhook), secret: webhook.secret };
}

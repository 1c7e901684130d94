import type { CallContext } from '@switchyard/shared';
import type { GetWebhookRequest__Output, Webhook } from '@switchyard/shared/proto/notification/v1';
import { findWebhook, organizationOf, toWebhook } from './common';
import type { HandlerDeps } from './deps';

export async function getWebhook(
  deps: HandlerDeps,
  request: GetWebhookRequest__Output,
  context: CallContext,
): Promise<Webhook> {
  return toWebhook(await findWebhook(deps.stores.webhooks, organizationOf(context), request.id));
}

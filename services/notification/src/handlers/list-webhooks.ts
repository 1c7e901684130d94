import type { CallContext } from '@switchyard/shared';
import type { ListWebhooksResponse } from '@switchyard/shared/proto/notification/v1';
import { organizationOf, toWebhook } from './common';
import type { HandlerDeps } from './deps';

export async function listWebhooks(
  deps: HandlerDeps,
  _request: unknown,
  context: CallContext,
): Promise<ListWebhooksResponse> {
  const webhooks = await deps.stores.webhooks.list(organizationOf(context));
  webhooks.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  return { webhooks: webhooks.map(toWebhook) };
}

import type { CallContext } from '@switchyard/shared';
import type {
  RotateSecretResponse,
  RotateWebhookSecretRequest__Output,
} from '@switchyard/shared/proto/notification/v1';
import { rotate } from '../signing/secrets';
import { findWebhook, organizationOf, overlapSeconds } from './common';
import type { HandlerDeps } from './deps';

/**
 * New secret now; the previous one keeps signing (both signatures sent) for the overlap. Also how
 * a webhook whose stored secret no longer decrypts gets a usable one again.
 */
export async function rotateWebhookSecret(
  deps: HandlerDeps,
  request: RotateWebhookSecretRequest__Output,
  context: CallContext,
): Promise<RotateSecretResponse> {
  const organization = organizationOf(context);
  const overlap = overlapSeconds(request.overlap_seconds);
  const webhook = await findWebhook(deps.stores.webhooks, organization, request.id);
  // An unusable record's secret is unknown: nothing to keep signing with during an overlap.
  const rotated = rotate(webhook, webhook.unusable ? 0 : overlap);
  await deps.stores.webhooks.update(organization, webhook.id, {
    ...rotated,
    updatedAt: new Date().toISOString(),
  });
  return {
    secret: rotated.secret,
    previous_secret_expires_at: rotated.previousSecretExpiresAt ?? '',
  };
}

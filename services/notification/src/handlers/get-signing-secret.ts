import type { CallContext } from '@switchyard/shared';
import type { SigningSecret } from '@switchyard/shared/proto/notification/v1';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

/** The organization's secret for webhookUrl callbacks (created on first use). */
export async function getSigningSecret(
  deps: HandlerDeps,
  _request: unknown,
  context: CallContext,
): Promise<SigningSecret> {
  const current = await deps.orgSecrets.current(organizationOf(context));
  return { secret: current.secret, created_at: current.createdAt };
}

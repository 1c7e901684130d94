import { AppError, newId, type Logger } from '@switchyard/shared';
import type { GatewayClients } from '../clients';
import type { Organization } from '../store';

/** Pushes an organization's quota policy to the notification service's usage ledger. */
export type PolicyPusher = (org: Organization, requestId?: string) => Promise<void>;

export function notificationPolicyPusher(
  notification: GatewayClients['notification'],
): PolicyPusher {
  return async (org, requestId = newId('req')) => {
    await notification.putOrganizationPolicy(
      {
        organization: org.id,
        monthly_token_quota: org.monthlyTokenQuota,
        threshold_shares: org.thresholdShares,
        hard_quota: org.hardQuota,
      },
      { organization: org.id, keyId: '', requestId },
    );
  };
}

/** The admin call fails with 503 when the policy did not reach notification; repeating it is safe. */
export async function pushOrFail(
  push: PolicyPusher,
  org: Organization,
  requestId: string,
  logger: Logger,
): Promise<void> {
  try {
    await push(org, requestId);
  } catch (error) {
    logger.warn(
      { err: error, organization: org.id, requestId },
      'could not push the organization policy to notification',
    );
    throw new AppError(
      'unavailable',
      `organization ${org.id} is stored but its policy did not reach the notification service; repeat the call`,
      [],
      1,
    );
  }
}

/**
 * Pushes a policy in the background until it succeeds (the dev organization at start: the
 * gateway must not wait for notification). Returns a function that stops retrying.
 */
export function pushInBackground(
  push: PolicyPusher,
  org: Organization,
  logger: Logger,
  delays = { firstMs: 500, maxMs: 30_000 },
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (delayMs: number): Promise<void> => {
    if (stopped) return;
    try {
      await push(org);
      logger.info({ organization: org.id }, 'organization policy pushed to notification');
    } catch (error) {
      logger.debug(
        { err: error, organization: org.id, retryInMs: delayMs },
        'organization policy push failed; retrying',
      );
      if (stopped) return;
      timer = setTimeout(() => void attempt(Math.min(delayMs * 2, delays.maxMs)), delayMs);
      timer.unref();
    }
  };
  void attempt(delays.firstMs);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

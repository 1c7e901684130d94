import { AppError, type CallContext, type Logger } from '@switchyard/shared';
import type { GatewayClients } from '../clients';

/**
 * Whether an organization has a default result URL (an enabled request_completed webhook),
 * cached briefly so a synchronous generate does not cost a notification round trip each time.
 * When the notification service cannot answer and nothing is cached, the call degrades to a
 * synchronous answer (the caller still gets its result) instead of failing.
 */
export class DefaultResultUrls {
  private readonly cache = new Map<string, { has: boolean; until: number }>();

  constructor(
    private readonly notification: GatewayClients['notification'],
    private readonly logger: Logger,
    private readonly ttlMs = 5_000,
  ) {}

  async has(call: CallContext): Promise<boolean> {
    const cached = this.cache.get(call.organization);
    if (cached && cached.until > Date.now()) return cached.has;
    try {
      const { webhooks } = await this.notification.listWebhooks({}, call);
      const has = webhooks.some((w) => w.enabled && w.events.includes('request_completed'));
      this.cache.set(call.organization, { has, until: Date.now() + this.ttlMs });
      return has;
    } catch (error) {
      if (!(error instanceof AppError) || !['unavailable', 'timeout'].includes(error.code))
        throw error;
      this.logger.warn(
        { requestId: call.requestId, code: error.code },
        'default result URL unknown: answering synchronously',
      );
      return cached?.has ?? false;
    }
  }

  /** Registration, update or deletion of a webhook changes the answer at once on this replica. */
  forget(organization: string): void {
    this.cache.delete(organization);
  }
}

import { AppError, type CallContext, type Logger } from '@switchyard/shared';
import type { GatewayClients } from '../clients';
import type { Change, ReadModel } from './read-model';

/**
 * Whether an organization has a default result URL (an enabled request_completed webhook),
 * cached briefly so a synchronous generate does not cost a notification round trip each time.
 * Calls that find no fresh answer share one lookup per organization, so an expired entry under
 * load costs one round trip, not one per call in flight. When the notification service cannot
 * answer and nothing is cached, the call degrades to a synchronous answer (the caller still gets
 * its result) instead of failing.
 */
export class DefaultResultUrls implements ReadModel {
  private readonly cache = new Map<string, { has: boolean; until: number }>();
  private readonly lookups = new Map<string, Promise<boolean>>();

  constructor(
    private readonly notification: GatewayClients['notification'],
    private readonly logger: Logger,
    private readonly ttlMs = 5_000,
  ) {}

  async has(call: CallContext): Promise<boolean> {
    const cached = this.cache.get(call.organization);
    if (cached && cached.until > Date.now()) return cached.has;
    try {
      return await this.lookup(call);
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

  /** Registration, update or deletion of a webhook (here or through another replica) changes the answer. */
  changed(organization: string, change: Change): void {
    if (change !== 'webhooks') return;
    this.cache.delete(organization);
    // A lookup already under way may have read the webhooks before the change: not kept.
    this.lookups.delete(organization);
  }

  private lookup(call: CallContext): Promise<boolean> {
    const { organization } = call;
    const running = this.lookups.get(organization);
    if (running) return running;
    const lookup = this.notification.listWebhooks({}, call).then(
      ({ webhooks }) => {
        const has = webhooks.some((w) => w.enabled && w.events.includes('request_completed'));
        if (this.lookups.get(organization) === lookup) {
          this.cache.set(organization, { has, until: Date.now() + this.ttlMs });
          this.lookups.delete(organization);
        }
        return has;
      },
      (error: unknown) => {
        if (this.lookups.get(organization) === lookup) this.lookups.delete(organization);
        throw error;
      },
    );
    this.lookups.set(organization, lookup);
    return lookup;
  }
}

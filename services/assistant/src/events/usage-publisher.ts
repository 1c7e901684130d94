import {
  AppError,
  createEvent,
  type CallContext,
  type EventPublisher,
  type Logger,
  type UsageRecorded,
} from '@switchyard/shared';

export interface AssistantUsage {
  agent: string;
  requestId: string;
  model: string;
  tokensInput: number;
  tokensOutput: number;
  /** As priced by the content service; 0 for the builtin engine. */
  cost: number;
  outcome: UsageRecorded['outcome'];
  /** The usage event's id; deterministic per call so a call run twice is counted once. */
  eventId?: string;
}

/** The canonical public path of an agent, as metered and billed. */
export function assistantEndpoint(agent: string): string {
  return `/api/v2/ai/assistants/${agent}`;
}

/**
 * Publishes one usage.recorded per answered call through the outbox publisher: a bus outage does
 * not fail the call (the event is stored and relayed later); a call fails only when its usage can
 * be neither published nor stored.
 */
export class UsagePublisher {
  constructor(
    private readonly bus: EventPublisher,
    private readonly logger: Logger,
  ) {}

  async record(context: CallContext, usage: AssistantUsage): Promise<void> {
    const event = createEvent('usage.recorded', {
      id: usage.eventId,
      source: 'assistant',
      organization: context.organization,
      data: {
        requestId: usage.requestId,
        keyId: context.keyId,
        endpoint: assistantEndpoint(usage.agent),
        model: usage.model,
        tokensInput: usage.tokensInput,
        tokensOutput: usage.tokensOutput,
        cost: usage.cost,
        outcome: usage.outcome,
      },
    });
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error({ err: error, requestId: usage.requestId }, 'usage event not published');
      throw new AppError('unavailable', 'usage could not be recorded; please retry', [], 1);
    }
  }
}

import type { CallContext } from '@switchyard/shared';
import type {
  Interaction__Output,
  RecordInteractionsRequest__Output,
  RecordInteractionsResponse,
} from '@switchyard/shared/proto/recommendation/v1';
import { isInteractionType, type UserInteraction } from '../model/types';
import type { InteractionToStore } from '../store/interactions/port';
import type { HandlerDeps } from './deps';
import {
  checkBatchSize,
  checkId,
  FieldErrors,
  parseTimestamp,
  requireOrganization,
} from './validation';

function toInteraction(
  input: Interaction__Output,
  index: number,
  errors: FieldErrors,
  now: Date,
): InteractionToStore | undefined {
  const before = errors.count;
  const at = (field: string) => `/interactions/${index}/${field}`;
  checkId(errors, at('userId'), input.user_id);
  checkId(errors, at('itemId'), input.item_id);
  const type = input.type;
  if (!isInteractionType(type)) {
    errors.add(
      at('type'),
      'must be one of view, click, cart, purchase, ticket, enroll, complete, rating',
    );
  } else if (type === 'rating' && !(input.value >= 1 && input.value <= 5)) {
    errors.add(at('value'), 'must be a rating between 1 and 5');
  }
  const timestamp = input.timestamp === '' ? now.getTime() : parseTimestamp(input.timestamp);
  if (timestamp === undefined) errors.add(at('timestamp'), 'must be an ISO 8601 date-time');
  if (errors.count > before || timestamp === undefined || !isInteractionType(type))
    return undefined;
  const interaction: UserInteraction = {
    userId: input.user_id,
    itemId: input.item_id,
    type,
    value: type === 'rating' ? input.value : 0,
    timestamp,
  };
  // Only a caller-supplied time identifies a retry; two "now" views are two views.
  const dedupeKey =
    input.timestamp === ''
      ? undefined
      : JSON.stringify([
          interaction.userId,
          interaction.itemId,
          type,
          interaction.value,
          timestamp,
        ]);
  return { ...interaction, dedupeKey };
}

/**
 * Stores the interactions, tells every replica whose profiles changed (so the users' next
 * recommendations use them), schedules a model rebuild and announces the data update.
 * Interactions on items not in the catalog are kept (the catalog may arrive later) and counted
 * in the answer, as are those not stored because they were stored before (duplicates).
 */
export async function recordInteractions(
  deps: HandlerDeps,
  request: RecordInteractionsRequest__Output,
  context: CallContext,
): Promise<RecordInteractionsResponse> {
  const organization = requireOrganization(context);
  checkBatchSize('/interactions', request.interactions.length, deps.maxBatchSize);
  const errors = new FieldErrors();
  const now = deps.now?.() ?? new Date();
  const valid: InteractionToStore[] = [];
  request.interactions.forEach((input, index) => {
    const interaction = toInteraction(input, index, errors, now);
    if (interaction) valid.push(interaction);
  });
  errors.throwIfAny();

  const stored = await deps.interactions.append(organization, valid);
  deps.models.recorded(organization, stored);
  const userIds = [...new Set(valid.map((i) => i.userId))];
  // This replica at once (read your writes), the others through the bus.
  deps.profiles.invalidate(organization, userIds);
  await deps.replicaEvents.interactionsRecorded(organization, userIds, stored.length);
  if (stored.length > 0) deps.scheduler.interactionsRecorded(organization);
  const unknownItems = await countUnknownItems(deps, organization, stored);
  if (unknownItems > 0) {
    deps.logger.info(
      { requestId: context.requestId, unknownItems, recorded: stored.length },
      'interactions on items not in the catalog',
    );
  }
  await deps.publisher.publish(organization, 'interactions', stored.length);
  return {
    recorded: stored.length,
    duplicates: valid.length - stored.length,
    unknown_items: unknownItems,
  };
}

async function countUnknownItems(
  deps: HandlerDeps,
  organization: string,
  stored: UserInteraction[],
): Promise<number> {
  const known = await deps.items.getMany(organization, [...new Set(stored.map((i) => i.itemId))]);
  return stored.filter((i) => !known.has(i.itemId)).length;
}

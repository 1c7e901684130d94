import type { CallContext } from '@switchyard/shared';
import type { ModelInfo } from '@switchyard/shared/proto/recommendation/v1';
import type { HandlerDeps } from './deps';
import { requireOrganization } from './validation';

/** Trains the organization's model now (in a worker thread) and publishes it to every replica. */
export async function rebuildModel(
  deps: HandlerDeps,
  _request: unknown,
  context: CallContext,
): Promise<ModelInfo> {
  const organization = requireOrganization(context);
  const model = await deps.models.rebuild(organization);
  if (!model)
    return {
      algorithm: 'none',
      version: 0,
      items: 0,
      users: 0,
      interactions: 0,
      trained_at: '',
      training_ms: 0,
    };
  const data = model.data;
  return {
    algorithm: data.algorithm,
    version: data.version,
    items: data.itemIds.length,
    users: data.users,
    interactions: data.interactions,
    trained_at: data.trainedAt,
    training_ms: data.trainingMs,
  };
}

import { AppError } from '@switchyard/shared';
import type { ModelRegistry } from './registry';
import type { TextModel } from './text-model';

/**
 * A key's `models` scope (the ids or aliases it may call, from the gateway): the model a request
 * names, or the default it gets, must be one of them; 403 model_not_allowed otherwise. The
 * model's own fallbacks are not the caller's choice and stay allowed.
 */
export function checkAllowed(
  registry: ModelRegistry,
  model: TextModel,
  allowed: readonly string[] | undefined,
): void {
  if (allowed === undefined) return;
  if (allowed.some((name) => registry.find(name) === model)) return;
  throw new AppError(
    'model_not_allowed',
    `this API key may not use model ${model.info.id}; it may use: ${allowed.join(', ') || 'no model'}`,
    [{ field: '/model', reason: 'not among the models of this API key', allowed: [...allowed] }],
  );
}

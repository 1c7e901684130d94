import { AppError, countTokens, type CallContext, UsageRoutes } from '@switchyard/shared';
import type {
  TransformRequest__Output,
  TransformResponse,
} from '@switchyard/shared/proto/content/v1';
import { checkAllowed } from '../models/allowed';
import { normalizeLanguage } from '../models/language';
import { routeWithFallback } from '../models/routing';
import {
  SUMMARY_LENGTHS,
  TEXT_FORMATS,
  type CallOptions,
  type Capability,
  type SummaryLength,
  type TextFormat,
  type TextModel,
  type TextResult,
  type TranslationRoute,
} from '../models/text-model';
import type { ModelDeps } from './deps';
import { billableOnce, callWithUsage, usageMessage } from './model-call';
import { checkContextWindow, checkInputSize, requestIdOf, requireText } from './validation';

const ACTIONS = ['summarize', 'reformat', 'translate'] as const;
type Action = (typeof ACTIONS)[number];

type ActionResult = TextResult & { originalFormat?: TextFormat; route?: TranslationRoute };

/** One action's outcome: how to run it on a model of the chain and the action-specific response fields. */
interface ActionOutcome {
  capability: Capability;
  run: (model: TextModel, options?: CallOptions) => Promise<ActionResult>;
  fields: (result: ActionResult) => Partial<TransformResponse>;
}

function actionOf(value: string): Action {
  if (!(ACTIONS as readonly string[]).includes(value)) {
    throw AppError.invalid(
      `action must be one of ${ACTIONS.join(', ')}`,
      '/action',
      value ? 'unknown action' : 'required',
    );
  }
  return value as Action;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw AppError.invalid(
      `${field} must be one of ${allowed.join(', ')}`,
      `/${field}`,
      `unknown ${field}`,
    );
  }
  return value as T;
}

function summarizeAction(
  request: TransformRequest__Output,
  deps: ModelDeps,
): { model: TextModel; outcome: ActionOutcome } {
  const targetLength = oneOf<SummaryLength>(
    request.target_length.trim() || 'medium',
    SUMMARY_LENGTHS,
    'target_length',
  );
  const model = deps.models.resolveFor(request.model, 'summarize');
  return {
    model,
    outcome: {
      capability: 'summarize',
      run: (m, options) => m.summarize({ text: request.text, targetLength }, options),
      fields: (result) => ({
        original_length: Array.from(request.text).length,
        transformed_text: result.text,
      }),
    },
  };
}

function reformatAction(
  request: TransformRequest__Output,
  deps: ModelDeps,
): { model: TextModel; outcome: ActionOutcome } {
  const requested = requireText(request.format, 'format').trim();
  const format = oneOf<TextFormat>(requested, TEXT_FORMATS, 'format');
  const model = deps.models.resolveFor(request.model, 'reformat');
  return {
    model,
    outcome: {
      capability: 'reformat',
      run: (m, options) => m.reformat({ text: request.text, format }, options),
      fields: (result) => ({
        original_format: result.originalFormat,
        transformed_text: result.text,
      }),
    },
  };
}

function translateAction(
  request: TransformRequest__Output,
  deps: ModelDeps,
): { model: TextModel; outcome: ActionOutcome } {
  const target = normalizeLanguage(requireText(request.target_language, 'target_language'));
  const source = normalizeLanguage(request.source_language);
  const model = deps.models.resolveTranslator(request.model, source, target);
  const echo = { original_text: request.text };
  if (source === target) {
    // Nothing to translate: the text is already in the target language.
    const tokens = countTokens(request.text);
    return {
      model,
      outcome: {
        capability: 'translate',
        run: async () => ({ text: request.text, tokensInput: tokens, tokensOutput: tokens }),
        fields: (r) => ({ ...echo, translated_text: r.text }),
      },
    };
  }
  if (!model.info.capabilities.includes('translate')) {
    throw AppError.unsupported(
      `cannot translate ${source || 'the text'} -> ${target}: model ${model.info.id} has no translation capability; ` +
        'a model with the translate capability must be configured',
      [{ field: '/model', reason: 'lacks the translate capability' }],
    );
  }
  return {
    model,
    outcome: {
      capability: 'translate',
      run: (m, options) =>
        m.translate(
          { text: request.text, sourceLanguage: source, targetLanguage: target },
          options,
        ),
      fields: (result) => ({
        ...echo,
        translated_text: result.text,
        ...(result.route ? { translation: routeMessage(result.route) } : {}),
      }),
    },
  };
}

function routeMessage(route: TranslationRoute) {
  return { route: route.languages, pivot_languages: route.languages.slice(1, -1) };
}

const ACTION_HANDLERS: Record<Action, typeof summarizeAction> = {
  summarize: summarizeAction,
  reformat: reformatAction,
  translate: translateAction,
};

/** The echo of an untranslated text runs on no model: there is nothing to fall back from. */
function chainOf(deps: ModelDeps, model: TextModel, outcome: ActionOutcome): TextModel[] {
  return model.info.capabilities.includes(outcome.capability)
    ? deps.models.chainFor(model, outcome.capability)
    : [model];
}

/** Transform: summarize, reformat or translate; a retry with the same call key gets the kept answer. */
export function transform(
  deps: ModelDeps,
  request: TransformRequest__Output,
  context: CallContext,
  options?: CallOptions,
): Promise<TransformResponse> {
  return billableOnce(deps, context, 'Transform', (once) =>
    runTransform(deps, request, context, once.usageEventId, options),
  );
}

async function runTransform(
  deps: ModelDeps,
  request: TransformRequest__Output,
  context: CallContext,
  usageEventId: string | undefined,
  options?: CallOptions,
): Promise<TransformResponse> {
  const requestId = requestIdOf(context);
  const action = actionOf(request.action.trim());
  deps.models.resolve(request.model);
  requireText(request.text, 'text');
  await checkInputSize(request.text, 'text', deps.maxInputTokens);
  const { model, outcome } = ACTION_HANDLERS[action](request, deps);
  checkAllowed(deps.models, model, context.models);
  checkContextWindow([request.text], 1, 'text', model);
  const result = await callWithUsage(deps.usage, {
    context,
    requestId,
    route: UsageRoutes.contentTransform,
    model,
    run: () =>
      routeWithFallback(outcome.capability, chainOf(deps, model, outcome), (m) =>
        outcome.run(m, options),
      ),
    usageEventId,
  });
  return { usage: usageMessage(result), request_id: requestId, ...outcome.fields(result) };
}

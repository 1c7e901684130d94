import { SpanKind, type Span } from '@opentelemetry/api';
import { tracingEnabled, withSpan } from '@switchyard/shared';
import type { Capability, TextModel } from './text-model';
import { spentOf } from './usage';

/** OpenTelemetry gen_ai operation names: chat for conversations, text_completion for the text operations. */
function operationName(operation: Capability): string {
  return operation === 'chat' ? 'chat' : 'text_completion';
}

function recordTokens(
  span: Span,
  tokens: { tokensInput?: unknown; tokensOutput?: unknown } | undefined,
): void {
  if (typeof tokens?.tokensInput === 'number')
    span.setAttribute('gen_ai.usage.input_tokens', tokens.tokensInput);
  if (typeof tokens?.tokensOutput === 'number')
    span.setAttribute('gen_ai.usage.output_tokens', tokens.tokensOutput);
}

/**
 * One model attempt as a client span with the gen_ai semantic-convention attributes: the model,
 * its provider, and the tokens it consumed and produced (also those spent before a failure).
 */
export function traceModelCall<R>(
  operation: Capability,
  model: TextModel,
  run: () => Promise<R>,
): Promise<R> {
  if (!tracingEnabled()) return run();
  const gen = operationName(operation);
  return withSpan(
    `${gen} ${model.info.id}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': gen,
        'gen_ai.provider.name': model.info.provider,
        'gen_ai.request.model': model.info.id,
        'switchyard.model.capability': operation,
      },
    },
    async (span) => {
      try {
        const result = await run();
        recordTokens(span, result as { tokensInput?: unknown; tokensOutput?: unknown });
        return result;
      } catch (error) {
        recordTokens(span, spentOf(error));
        throw error;
      }
    },
  );
}

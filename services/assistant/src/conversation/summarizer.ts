import type { CallContext, ContentServiceRpc } from '@switchyard/shared';
import { BUILTIN_MODEL, isBuiltinModel } from '../responders/builtin';
import {
  SUMMARY_MAX_TOKENS,
  transcriptOf,
  type Summarizer,
  type SummaryResult,
} from './history-summary';
import type { ChatMessage } from '../store/sessions/port';
import type { CompletionService } from '../responders/completions';

const INSTRUCTIONS =
  'Summarize this conversation between a user and an assistant for the assistant to continue it: ' +
  `the user's goals, facts they gave (names, numbers, dates, choices) and what was answered or agreed. At most ${SUMMARY_MAX_TOKENS / 2} words, no preamble.`;

/** The conversation's model (Complete) and the builtin summarizer (Transform). */
export interface SummaryService {
  completions: Pick<CompletionService, 'complete'>;
  content: Pick<ContentServiceRpc, 'transform'>;
}

/**
 * Summaries from the content service: the conversation's own model (Complete; its tokens are the
 * reply's), or for the builtin engine the builtin summarizer (Transform; content records those
 * tokens itself, so they are reported as zero here).
 */
export class ContentSummarizer implements Summarizer {
  constructor(private readonly services: SummaryService) {}

  async summarize(
    previous: string | undefined,
    turns: ChatMessage[],
    model: string,
    context: CallContext,
  ): Promise<SummaryResult> {
    if (isBuiltinModel(model)) {
      const text = transcriptOf(previous, turns, false);
      const response = await this.services.content.transform(
        { model: BUILTIN_MODEL, action: 'summarize', text, target_length: 'short' },
        context,
      );
      return {
        text: response.transformed_text ?? '',
        model: BUILTIN_MODEL,
        tokensInput: 0,
        tokensOutput: 0,
        cost: 0,
      };
    }
    const text = transcriptOf(previous, turns);
    const completion = await this.services.completions.complete(
      {
        model,
        operation: 'chat',
        max_tokens: SUMMARY_MAX_TOKENS,
        messages: [
          { role: 'system', content: INSTRUCTIONS },
          { role: 'user', content: text },
        ],
      },
      context,
    );
    return {
      text: completion.text,
      model: completion.model,
      tokensInput: completion.tokensInput,
      tokensOutput: completion.tokensOutput,
      cost: completion.cost,
    };
  }
}

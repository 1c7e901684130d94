import type { CompleteRequest } from '@switchyard/shared/generated/switchyard/content/v1/CompleteRequest';
import type { CompletionService } from '../clients/content-client';
import { completionMessages } from './prompt';
import type { ResponderCall, ResponderInput, ResponderOutput } from './responder';

/** The content registry's capability a conversation needs. */
const OPERATION = 'chat';

/**
 * Replies with a model of the content service's registry (Complete, or CompleteStream when
 * streaming). The model that answered, its tokens and their cost come from the completion;
 * an unknown model is the content service's invalid_request, passed through.
 */
export class ContentModelResponder {
  constructor(private readonly content: CompletionService) {}

  async respond(input: ResponderInput, call: ResponderCall): Promise<ResponderOutput> {
    const request: CompleteRequest = { model: call.model, messages: completionMessages(input), operation: OPERATION };
    const completion = call.onDelta
      ? await this.content.completeStream(request, call.context, call.onDelta, call.signal)
      : await this.content.complete(request, call.context);
    return {
      reply: completion.text,
      model: completion.model,
      tokensInput: completion.tokensInput,
      tokensOutput: completion.tokensOutput,
      cost: completion.cost,
    };
  }
}

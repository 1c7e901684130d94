import type { CompleteRequest, CompletionMessage } from '@switchyard/shared/proto/content/v1';
import type { Completion, CompletionService } from './completions';
import type { Toolbox } from '../tools/toolbox';
import { wordDeltas } from './builtin';
import { completionMessages, trimToBudget } from './prompt';
import type { ResponderCall, ResponderInput, ResponderOutput } from './responder';

/** The content registry's capability a conversation needs. */
const OPERATION = 'chat';
/** Model rounds that may call tools; one more round (without tools) must then answer. */
export const MAX_TOOL_ROUNDS = 5;

/**
 * Replies with a model of the content service's registry (Complete, or CompleteStream when
 * streaming). The model that answered, its tokens and their cost come from the completion;
 * an unknown model is the content service's invalid_request, passed through. With tools, the
 * model may call them for up to MAX_TOOL_ROUNDS rounds; every round's tokens count.
 */
export class ContentModelResponder {
  constructor(
    private readonly content: CompletionService,
    /** Tokens of system prompt plus history a model is sent (undefined: all of it). */
    private readonly historyTokenBudget?: number,
  ) {}

  private messages(input: ResponderInput): CompletionMessage[] {
    const messages = completionMessages(input);
    return this.historyTokenBudget ? trimToBudget(messages, this.historyTokenBudget) : messages;
  }

  async respond(input: ResponderInput, call: ResponderCall): Promise<ResponderOutput> {
    if (input.tools) return this.respondWithTools(input, input.tools, call);
    const request: CompleteRequest = {
      model: call.model,
      messages: this.messages(input),
      operation: OPERATION,
    };
    const completion = call.onDelta
      ? await this.content.completeStream(request, call.context, call.onDelta, call.signal)
      : await this.content.complete(request, call.context);
    return outputOf(completion, []);
  }

  /** The tool loop: rounds are not streamed; a streamed call gets the final answer in word deltas. */
  private async respondWithTools(
    input: ResponderInput,
    tools: Toolbox,
    call: ResponderCall,
  ): Promise<ResponderOutput> {
    const messages = this.messages(input);
    const offered = tools.definitions.map((d) => ({
      name: d.name,
      description: d.description,
      parameters_json: JSON.stringify(d.parameters),
    }));
    const rounds: Completion[] = [];
    let slowest = 0;
    for (let round = 0; ; round++) {
      // Another tool round only when the deadline leaves time for it and for the answer after it.
      const mayCall =
        round < MAX_TOOL_ROUNDS &&
        (call.deadline === undefined || call.deadline - Date.now() > 2 * slowest);
      const started = Date.now();
      const completion = await this.content.complete(
        { model: call.model, messages, operation: OPERATION, tools: mayCall ? offered : [] },
        call.context,
      );
      slowest = Math.max(slowest, Date.now() - started);
      rounds.push(completion);
      if (!mayCall || completion.toolCalls.length === 0) break;
      messages.push({
        role: 'assistant',
        content: completion.text,
        tool_calls: completion.toolCalls.map((c) => ({
          id: c.id,
          name: c.name,
          arguments_json: c.arguments,
        })),
      });
      for (const toolCall of completion.toolCalls) {
        messages.push({
          role: 'tool',
          tool_call_id: toolCall.id,
          content: await tools.run(toolCall.name, toolCall.arguments),
        });
      }
    }
    const last = rounds[rounds.length - 1] as Completion;
    if (call.onDelta) for (const delta of wordDeltas(last.text)) await call.onDelta(delta);
    return outputOf(last, rounds);
  }
}

/** The last completion's text and model; tokens and cost of every round. */
function outputOf(last: Completion, rounds: Completion[]): ResponderOutput {
  const all = rounds.length > 0 ? rounds : [last];
  return {
    reply: last.text,
    model: last.model,
    tokensInput: all.reduce((sum, c) => sum + c.tokensInput, 0),
    tokensOutput: all.reduce((sum, c) => sum + c.tokensOutput, 0),
    cost: all.reduce((sum, c) => sum + c.cost, 0),
    replyTokens: last.tokensOutput,
  };
}

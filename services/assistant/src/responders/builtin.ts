import { AppError, countTokens, countTokensOffThread } from '@switchyard/shared';
import type { AgentRegistry } from '../agents/registry';
import { renderPrompt } from './prompt';
import type {
  DeltaSink,
  Responder,
  ResponderCall,
  ResponderInput,
  ResponderOutput,
} from './responder';

export const BUILTIN_MODEL = 'builtin';

export function isBuiltinModel(model: string): boolean {
  return model.trim().toLowerCase() === BUILTIN_MODEL;
}

/** Word-sized pieces (each word with the space after it), for streaming a finished reply. */
export function wordDeltas(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

async function streamText(text: string, onDelta: DeltaSink): Promise<void> {
  for (const delta of wordDeltas(text)) await onDelta(delta);
}

/** The offline engine: each agent composes its reply from the retrieved data and the session. */
export class BuiltinResponder implements Responder {
  readonly defaultModel = BUILTIN_MODEL;

  constructor(private readonly agents: AgentRegistry) {}

  checkModel(model: string): string {
    if (isBuiltinModel(model)) return BUILTIN_MODEL;
    throw AppError.invalid(
      `unknown model '${model}'; available: ${BUILTIN_MODEL}`,
      '/model',
      `must be one of ${BUILTIN_MODEL}`,
    );
  }

  async respond(
    input: ResponderInput,
    call?: Pick<ResponderCall, 'onDelta'>,
  ): Promise<ResponderOutput> {
    const agent = input.agentImpl ?? this.agents.get(input.agent);
    const reply = agent.composeOffline({
      prepared: input.prepared,
      history: input.history,
      step: input.step,
    });
    if (call?.onDelta) await streamText(reply, call.onDelta);
    return {
      reply,
      model: BUILTIN_MODEL,
      tokensInput: await countTokensOffThread(renderPrompt(input)), // the history can be long: off the event loop
      tokensOutput: countTokens(reply),
      cost: 0,
    };
  }
}

import { countTokens } from '@switchyard/shared';
import type { AgentRegistry } from '../agents/registry';
import { renderPrompt } from './prompt';
import type { Responder, ResponderInput, ResponderOutput } from './responder';

export const BUILTIN_MODEL = 'builtin';

/** The offline engine: each agent composes its reply from the retrieved data and the session. */
export class BuiltinResponder implements Responder {
  readonly models = [BUILTIN_MODEL] as const;

  constructor(private readonly agents: AgentRegistry) {}

  async respond(input: ResponderInput): Promise<ResponderOutput> {
    const agent = this.agents.get(input.agent);
    const reply = agent.composeOffline({ prepared: input.prepared, history: input.history, step: input.step });
    return {
      reply,
      model: BUILTIN_MODEL,
      tokensInput: countTokens(renderPrompt(input)),
      tokensOutput: countTokens(reply),
    };
  }
}

import type { ContextItem, PreparedTurn } from '../agents/types';
import type { ChatMessage } from '../store/session-store';

export interface ResponderInput {
  agent: string;
  /** The agent's instructions, including remembered facts. */
  systemPrompt: string;
  /** Retrieved records the reply should be grounded in. */
  context: ContextItem[];
  /** The conversation so far, ending with the user's latest message. */
  history: ChatMessage[];
  step?: number;
  /** The agent's full preparation (signals and memory), for engines that use structure rather than text. */
  prepared: PreparedTurn;
}

export interface ResponderOutput {
  reply: string;
  /** The model that produced the reply. */
  model: string;
  tokensInput: number;
  tokensOutput: number;
}

/** Produces a reply from a prepared turn: the builtin offline engine now, model providers later. */
export interface Responder {
  /** Model ids this responder answers for. */
  readonly models: readonly string[];
  respond(input: ResponderInput, model: string): Promise<ResponderOutput>;
}

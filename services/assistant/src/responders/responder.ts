import type { CallContext } from '@switchyard/shared';
import type { Agent, ContextItem, PreparedTurn } from '../agents/types';
import type { ChatMessage } from '../store/sessions/port';
import type { Toolbox } from '../tools/toolbox';

export interface ResponderInput {
  agent: string;
  /** The agent's instructions, including remembered facts. */
  systemPrompt: string;
  /** Retrieved records the reply should be grounded in. */
  context: ContextItem[];
  /** The conversation so far, ending with the user's latest message (older turns are in summary). */
  history: ChatMessage[];
  /** Running summary of the turns before history (they no longer fit the model's budget). */
  summary?: string;
  step?: number;
  /** The agent's full preparation (signals and memory), for engines that use structure rather than text. */
  prepared: PreparedTurn;
  /** The agent that prepared the turn (an organization's own agent is not in the built-in registry). */
  agentImpl?: Agent;
  /** Tools a tool-calling model may use this turn (models without tool support answer directly). */
  tools?: Toolbox;
}

export interface ResponderOutput {
  reply: string;
  /** The model that produced the reply (a fallback model when the requested one failed). */
  model: string;
  tokensInput: number;
  tokensOutput: number;
  /** Price of the tokens, as the content service computed it; 0 for the builtin engine. */
  cost: number;
  /** Tokens of the reply itself (a model's last round), to tell a reply cut at its cap. */
  replyTokens?: number;
}

/** Receives the reply's text as it is produced; a returned promise holds the producer until it settles. */
export type DeltaSink = (delta: string) => void | Promise<void>;

/** One reply to produce: on which model, for whom, and where streamed text goes. */
export interface ResponderCall {
  model: string;
  context: CallContext;
  /** Set for streamed replies. */
  onDelta?: DeltaSink;
  /** Aborts when the caller cancelled (streams). */
  signal?: AbortSignal;
  /** The caller's deadline (epoch ms): tool rounds stop in time for the answer. */
  deadline?: number;
}

/** Produces a reply from a prepared turn: the builtin offline engine, or a model through the content service. */
export interface Responder {
  /** The model used when a request names none. */
  readonly defaultModel: string;
  /** The canonical id of a requested model; throws invalid_request for one this responder cannot serve. */
  checkModel(model: string): string;
  respond(input: ResponderInput, call: ResponderCall): Promise<ResponderOutput>;
}

import type { ChatMessage, CompleteInput } from '../models/text-model';

/**
 * Chat completions pass the conversation through unchanged: the caller (the assistant service)
 * already put its agent's system message first.
 */
export function chatPrompt(input: CompleteInput): ChatMessage[] {
  return input.messages.map((message) => ({ ...message }));
}

import type { ChatMessage } from '../store/sessions/port';

function same(a: ChatMessage, b: ChatMessage): boolean {
  return a.role === b.role && a.content === b.content;
}

function equalRuns(a: ChatMessage[], b: ChatMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => same(m, b[i] as ChatMessage));
}

interface Alignment {
  /** How many of the client's messages the stored history already holds (incoming[0..end)). */
  end: number;
  /** How many messages the overlap compared. */
  matched: number;
}

/**
 * The largest end such that incoming[0..end) ends exactly like stored does: the stored tail equals
 * the client's head or, when the client sends more history than the capped store keeps, the whole
 * store equals a run of the client's list.
 */
export function align(stored: ChatMessage[], incoming: ChatMessage[]): Alignment {
  for (let end = incoming.length; end > 0; end--) {
    const n = Math.min(end, stored.length);
    if (n > 0 && equalRuns(stored.slice(stored.length - n), incoming.slice(end - n, end)))
      return { end, matched: n };
  }
  return { end: 0, matched: 0 };
}

/** The stored history without the assistant replies after its last user message. */
function withoutTrailingReplies(stored: ChatMessage[]): ChatMessage[] {
  let end = stored.length;
  while (end > 0 && stored[end - 1]?.role === 'assistant') end--;
  return stored.slice(0, end);
}

export interface MergedHistory {
  messages: ChatMessage[];
  /** The client's messages that were new to the store. */
  added: ChatMessage[];
  /** The client resent its last turn (e.g. a retry after a lost answer). */
  replay: boolean;
}

/**
 * Extends the stored history with the client's messages that are not already in it, so resending
 * recent history never duplicates. Clients that omit assistant messages are compared without them.
 * A resent last turn replaces the reply it got before instead of adding a second one.
 */
export function mergeHistory(stored: ChatMessage[], incoming: ChatMessage[]): MergedHistory {
  const view = (messages: ChatMessage[]) =>
    incoming.some((m) => m.role === 'assistant')
      ? messages
      : messages.filter((m) => m.role !== 'assistant');
  const trimmed = withoutTrailingReplies(stored);
  const replay: MergedHistory = { messages: trimmed, added: [], replay: true };

  const full = align(view(stored), incoming);
  if (full.end === incoming.length) {
    // Nothing new: the client resent its last turn (only possible when it omits assistant messages).
    return trimmed.length < stored.length ? replay : { messages: stored, added: [], replay: true };
  }
  if (trimmed.length < stored.length) {
    // The client's list ends where the store did before our last reply, and fits better there.
    const beforeReply = align(view(trimmed), incoming);
    if (beforeReply.end === incoming.length && beforeReply.matched > full.matched) return replay;
  }
  const added = incoming.slice(full.end);
  return { messages: [...stored, ...added], added, replay: false };
}

/** The newest limit messages. */
export function capHistory(messages: ChatMessage[], limit: number): ChatMessage[] {
  return messages.length > limit ? messages.slice(messages.length - limit) : messages;
}

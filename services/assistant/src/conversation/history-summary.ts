import { countTokens, type CallContext } from '@switchyard/shared';
import type { ChatMessage, HistorySummary } from '../store/sessions/port';

/** Tokens a summary may take (the model is asked for this at most; a prompt reserves it). */
export const SUMMARY_MAX_TOKENS = 300;
/** Characters per turn of the fallback summary (used when no summarizer answers). */
const EXCERPT_CHARS = 200;
const EXCERPT_MAX_CHARS = 4000;

export interface SummaryResult {
  text: string;
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
}

/** Folds turns into a running summary: the conversation's model, or the builtin summarizer for the builtin engine. */
export interface Summarizer {
  summarize(
    previous: string | undefined,
    turns: ChatMessage[],
    model: string,
    context: CallContext,
  ): Promise<SummaryResult>;
}

/**
 * The turns (and the summary so far) as the text to summarize; with labelled false, the sentences
 * alone (an extractive summarizer would otherwise copy the role labels into its sentences).
 */
export function transcriptOf(
  previous: string | undefined,
  turns: ChatMessage[],
  labelled = true,
): string {
  const lines = turns.map((m) => (labelled ? `${m.role}: ${m.content}` : m.content));
  if (!previous) return lines.join('\n');
  return labelled
    ? `Summary so far: ${previous}\n\n${lines.join('\n')}`
    : [previous, ...lines].join('\n');
}

/** When no summarizer answers: the summary so far plus the start of each turn, bounded. Nothing is dropped unsaid. */
export function excerptSummary(previous: string | undefined, turns: ChatMessage[]): string {
  const lines = turns.map(
    (m) =>
      `${m.role}: ${m.content.length > EXCERPT_CHARS ? `${m.content.slice(0, EXCERPT_CHARS)}…` : m.content}`,
  );
  const text = [previous, ...lines].filter(Boolean).join('\n');
  return text.length > EXCERPT_MAX_CHARS ? `…${text.slice(text.length - EXCERPT_MAX_CHARS)}` : text;
}

export interface CompactionInput {
  /** The conversation as merged this turn (the stored turns plus the client's new ones), ending with the user's message. */
  messages: ChatMessage[];
  summary?: HistorySummary;
  /** Messages kept with the session; the reply about to be added counts. */
  historyLimit: number;
  /** Tokens the model is sent (system part, summary, history); undefined: no model reads the history. */
  budget?: number;
  /** Tokens of the system part (instructions and retrieved context). */
  systemTokens: number;
}

/** How far the turns from the start must be summarized: past the kept-history limit, and past what fits the budget. */
export function summaryEnd(input: CompactionInput): number {
  const last = input.messages.length - 1; // the user's latest message is always sent as it is
  const covered = Math.min(input.summary?.covered ?? 0, last);
  let end = Math.max(covered, input.messages.length + 1 - input.historyLimit);
  if (input.budget !== undefined) {
    const tokensOf = (from: number) =>
      input.messages.slice(from).reduce((sum, m) => sum + countTokens(m.content), 0);
    const summaryTokens = input.summary ? countTokens(input.summary.text) : 0;
    if (input.systemTokens + summaryTokens + tokensOf(end) > input.budget) {
      // Room for the summary that will replace the turns cut here.
      const room = input.budget - input.systemTokens - Math.max(summaryTokens, SUMMARY_MAX_TOKENS);
      let start = last;
      let used = countTokens(input.messages[last]?.content ?? '');
      while (start > end) {
        const cost = countTokens(input.messages[start - 1]?.content ?? '');
        if (used + cost > room) break;
        used += cost;
        start--;
      }
      end = start;
    }
  }
  return Math.max(0, Math.min(end, last));
}

import type { ChatMessage } from '../store/sessions/port';

const GREETING = /^\s*(hi|hello|hey|hallo|good (morning|afternoon|evening)|greetings)\b/i;
const CONFIRMATION =
  /^\s*(yes|yep|yeah|yup|done|confirm(ed)?|i confirm|ok(ay)?|sure|finished|complete(d)?|all (set|done)|ready|looks good|that'?s (it|done)|go ahead|let'?s (go|continue|move on))\b/i;
const FOLLOW_UP = /^\s*(and|what about|how about|also|same (for|in)|any in|anything in)\b/i;

/** Words of text, for length checks. */
function wordCount(text: string): number {
  return text.trim().split(/\s+/).filter(Boolean).length;
}

/** "hi", "hello there": a greeting without a question in it. */
export function isGreeting(text: string): boolean {
  return GREETING.test(text) && wordCount(text) <= 5 && !text.includes('?');
}

/**
 * "done", "yes, confirmed", "I confirm step 2": a short agreement. Long messages that start with
 * "yes" usually carry new content ("yes, the course is about ..."), so they do not count.
 */
export function isConfirmation(text: string): boolean {
  if (/\bconfirm(ed)?\b/i.test(text) && !text.includes('?')) return true;
  return CONFIRMATION.test(text) && wordCount(text) <= 6 && !text.includes('?');
}

export function isFollowUp(text: string): boolean {
  return FOLLOW_UP.test(text);
}

/** User messages before the latest one, newest first. */
export function earlierUserMessages(history: ChatMessage[]): string[] {
  const users = history.filter((m) => m.role === 'user').map((m) => m.content);
  return users.slice(0, -1).reverse();
}

/** The assistant reply that preceded the latest user message. */
export function previousReply(history: ChatMessage[]): string | undefined {
  for (let i = history.length - 2; i >= 0; i--) {
    const message = history[i];
    if (message?.role === 'assistant') return message.content;
    if (message?.role === 'user') return undefined;
  }
  return undefined;
}

/** A short quote of a message for "earlier you asked ...". */
export function quote(text: string, max = 80): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

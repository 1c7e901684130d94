import type { ChatMessage } from '../store/sessions/port';

/** Reference numbers customers quote: "order #A-10492", "ticket number 55821", "invoice INV-2027-0042". */
const REFERENCE_PATTERNS: Record<string, RegExp> = {
  orderNumber:
    /\border\s*(?:number|no\.?|num|id)?\s*(?:is|was|:)?\s*#?\s*([a-z]{0,4}-?\d[\d-]{3,15})\b/i,
  ticketNumber:
    /\bticket\s*(?:number|no\.?|num|id)?\s*(?:is|was|:)?\s*#?\s*([a-z]{0,4}-?\d[\d-]{3,15})\b/i,
  invoiceNumber:
    /\binvoice\s*(?:number|no\.?|num|id)?\s*(?:is|was|:)?\s*#?\s*([a-z]{0,4}-?\d[\d-]{3,15})\b/i,
};

const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/;

/** Reference numbers and email stated in text; the last mention of a kind wins. */
export function extractReferences(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [fact, pattern] of Object.entries(REFERENCE_PATTERNS)) {
    const match = pattern.exec(text);
    if (match?.[1]) found[fact] = match[1].toUpperCase();
  }
  const email = EMAIL.exec(text);
  if (email) found.email = email[0];
  return found;
}

/** Facts from the user messages of a turn, later messages overriding earlier ones. */
export function referencesIn(messages: ChatMessage[]): Record<string, string> {
  return messages
    .filter((m) => m.role === 'user')
    .reduce<Record<string, string>>(
      (facts, m) => ({ ...facts, ...extractReferences(m.content) }),
      {},
    );
}

/** "my order number is 10492" states a fact and asks nothing else. */
export function onlyStatesReferences(text: string): boolean {
  const rest = text
    .replace(
      /\b(hi|hello|hey|my|the|it'?s|is|was|here|number|no|num|id|order|ticket|invoice|email|thanks|thank you|sure|ok|okay|yes)\b/gi,
      ' ',
    )
    .replace(/[a-z]{0,4}-?\d[\d-]{3,15}/gi, ' ')
    .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, ' ')
    .replace(/[^a-z]+/gi, ' ')
    .trim();
  return rest.length === 0 && Object.keys(extractReferences(text)).length > 0;
}

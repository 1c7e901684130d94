import type { ChatMessage } from '../store/sessions/port';

/** A reference as customers type it: "A-10492", "#55821", "INV-2027-0042", "10492". */
const REFERENCE = '#?\\s*([a-z]{0,4}-?\\d[\\d-]{2,15})';
const OF = '(?:number|no\\.?|num|nr\\.?|nº|n°|id|numero|nummer)?\\s*(?:is|was|es|ist|est|:)?\\s*';

/** Reference numbers customers quote, by the word before them (four languages). */
const REFERENCE_PATTERNS: Record<string, RegExp> = {
  orderNumber: new RegExp(`\\b(?:order|pedido|bestellung|commande)\\s*${OF}${REFERENCE}\\b`, 'i'),
  ticketNumber: new RegExp(
    `\\b(?:ticket|booking|reservation|entrada|reserva|buchung|billet)\\s*${OF}${REFERENCE}\\b`,
    'i',
  ),
  invoiceNumber: new RegExp(`\\b(?:invoice|factura|rechnung|facture)\\s*${OF}${REFERENCE}\\b`, 'i'),
};
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/;
/** A message that is a reference and little else: "A-10492", "it's 10492", "#4411 thanks". */
const BARE_REFERENCE =
  /^\s*(?:(?:it'?s|it is|sure|ok|yes|here|the number is|number|es|ist|c'est)[\s,:]*)*#?\s*([a-z]{0,4}-?\d[\d-]{2,15})\s*[.!]?\s*(?:thanks?|thank you|gracias|danke|merci)?[.!]?\s*$/i;

export const REFERENCE_LABELS: Record<string, string> = {
  orderNumber: 'order',
  ticketNumber: 'booking',
  invoiceNumber: 'invoice',
  reference: 'reference',
  email: 'email',
};

/** Reference numbers and email stated in text. */
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

/** The reference of a message that gives one and nothing else (an answer to "what is your order number?"). */
export function bareReference(text: string): string | undefined {
  return BARE_REFERENCE.exec(text)?.[1]?.toUpperCase();
}

/** The first reference the conversation knows, labelled ("order **A-10492**"). */
export function knownReference(facts: Record<string, string>): string | undefined {
  const name = ['orderNumber', 'ticketNumber', 'invoiceNumber', 'reference'].find((n) => facts[n]);
  return name ? `${REFERENCE_LABELS[name]} **${facts[name]}**` : undefined;
}

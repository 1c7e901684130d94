import type { SupportArticle } from '../data/catalog';
import { KnowledgeBase } from '../retrieval/knowledge-base';
import { earlierUserMessages, isConfirmation, previousReply, quote } from './intents';
import { onlyStatesReferences, referencesIn } from './facts';
import type { Agent, ContextItem, OfflineInput, PreparedTurn, Turn, TurnSignals } from './types';

const SYSTEM_PROMPT =
  'You are the Switchyard customer support agent for orders, shipping, refunds, event tickets, course ' +
  'enrolment, accounts and API keys, billing and webhooks. Answer only from the help-centre articles in ' +
  'the context, quote the relevant steps and link the article in Markdown. If no article answers the ' +
  'question, say so plainly and offer to escalate to a human, asking for the order or ticket number.';

const ESCALATION_REQUEST = /\b(escalate|human|real person|speak to (someone|a person)|talk to (someone|a person)|complain|complaint)\b/i;
/** Our own offer, so that a "yes" after it means "escalate". */
const ESCALATION_OFFER = 'escalate this to our support team';
const CONTACT_QUERY = 'contact human agent escalate';

const FACT_LABELS: Record<string, string> = {
  orderNumber: 'order',
  ticketNumber: 'ticket',
  invoiceNumber: 'invoice',
  email: 'email',
};
/** Which remembered reference fits an article's category. */
const REFERENCE_FOR_CATEGORY: Record<string, string> = {
  orders: 'orderNumber',
  refunds: 'orderNumber',
  shipping: 'orderNumber',
  tickets: 'ticketNumber',
  billing: 'invoiceNumber',
};

export function createSupportAgent(kb = new KnowledgeBase()): Agent {
  return {
    info: { name: 'support', description: 'Customer support: answers from the help-centre knowledge base and escalates to a human', usesSteps: false },
    prepare: (turn) => prepareSupport(kb, turn),
    composeOffline: composeSupport,
  };
}

function prepareSupport(kb: KnowledgeBase, turn: Turn): PreparedTurn {
  const newFacts = referencesIn(turn.added);
  const facts = { ...turn.memory.facts, ...newFacts };
  // A message that only gives a number answers our question; the user's question is the one before.
  const factsOnly = onlyStatesReferences(turn.latest);
  const earlierQuestion = factsOnly ? earlierUserMessages(turn.history)[0] : undefined;
  const escalation =
    ESCALATION_REQUEST.test(earlierQuestion ?? turn.latest) ||
    (isConfirmation(turn.latest) && (previousReply(turn.history) ?? '').includes(ESCALATION_OFFER));
  const query = escalation ? CONTACT_QUERY : factsOnly ? earlierQuestion : turn.latest;
  const hits = query ? kb.answer(query) : [];
  const context: ContextItem[] = hits.map((hit) => ({ kind: 'article', score: hit.score, article: hit.item }));
  const signals: TurnSignals = { escalation, newFacts, earlierQuestion, factsOnly };
  return {
    systemPrompt: `${SYSTEM_PROMPT}${describeFacts(facts)}`,
    context,
    memory: { ...turn.memory, facts },
    signals,
  };
}

function describeFacts(facts: Record<string, string>): string {
  const known = Object.entries(facts).filter(([name]) => name in FACT_LABELS);
  return known.length === 0 ? '' : `\nKnown from this conversation: ${known.map(([n, v]) => `${FACT_LABELS[n]} ${v}`).join(', ')}.`;
}

function composeSupport({ prepared }: OfflineInput): string {
  const { facts } = prepared.memory;
  const articles = prepared.context.flatMap((item) => (item.kind === 'article' ? [item.article] : []));
  const parts: string[] = [];
  const noted = Object.entries(prepared.signals.newFacts ?? {}).filter(([name]) => name in FACT_LABELS);
  if (noted.length > 0) parts.push(`Thanks, I've noted ${noted.map(([n, v]) => `${FACT_LABELS[n]} **${v}**`).join(' and ')}.`);
  if (prepared.signals.earlierQuestion) parts.push(`Back to your question: "${quote(prepared.signals.earlierQuestion)}".`);

  const [best, ...related] = articles;
  if (prepared.signals.escalation) parts.push(escalationText(facts, best));
  else if (prepared.signals.factsOnly && !prepared.signals.earlierQuestion) parts.push('How can I help you with it?');
  else if (best) parts.push(articleAnswer(best, facts), ...related.map((a) => `Related: [${a.title}](${a.url})`));
  else parts.push(noAnswerText(facts));
  return parts.join('\n\n');
}

function articleAnswer(article: SupportArticle, facts: Record<string, string>): string {
  const steps = article.steps.map((step, i) => `${i + 1}. ${step}`).join('\n');
  const lines = [`Here is what our help centre says (**${article.title}**): ${article.summary}`, steps];
  const factName = REFERENCE_FOR_CATEGORY[article.category];
  const reference = factName ? facts[factName] : undefined;
  if (factName && reference) {
    lines.push(`For ${FACT_LABELS[factName]} **${reference}** you mentioned, start from that ${FACT_LABELS[factName]} in your account.`);
  }
  lines.push(`Full article: [${article.title}](${article.url})`);
  return lines.join('\n\n');
}

function knownReference(facts: Record<string, string>): string | undefined {
  const name = ['orderNumber', 'ticketNumber', 'invoiceNumber'].find((n) => facts[n]);
  return name ? `${FACT_LABELS[name]} **${facts[name]}**` : undefined;
}

function noAnswerText(facts: Record<string, string>): string {
  const reference = knownReference(facts);
  const offer = reference
    ? `I can ${ESCALATION_OFFER} with ${reference}; shall I?`
    : `I can ${ESCALATION_OFFER}: what is your order or ticket number?`;
  return `I couldn't find a help-centre article that answers this, and I'd rather not guess. ${offer}`;
}

function escalationText(facts: Record<string, string>, contact: SupportArticle | undefined): string {
  const reference = knownReference(facts);
  const link = contact ? ` ([${contact.title}](${contact.url}))` : '';
  if (!reference) {
    return `To get you to a person, I need your order or ticket number first: what is it?${link}`;
  }
  return (
    `To reach a person, email support@switchyard.dev with ${reference} and a short description; the team answers ` +
    `within one business day${link}. This offline assistant cannot open the case for you.`
  );
}

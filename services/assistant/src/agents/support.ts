import type { SupportArticle } from '../data/catalog';
import type { CollectionKind } from '../knowledge/kinds';
import { citation } from './knowledge-answer';
import { KnowledgeBase } from '../retrieval/knowledge-base';
import { earlierUserMessages, isConfirmation, previousReply, quote } from './intents';
import { onlyStatesReferences, referencesIn } from './facts';
import type { Agent, ContextItem, OfflineInput, PreparedTurn, Turn, TurnSignals } from './types';

const SYSTEM_PROMPT =
  'You are the Switchyard customer support agent for orders, shipping, refunds, event tickets, course ' +
  'enrolment, accounts and API keys, billing and webhooks. Answer only from the help-centre articles in ' +
  'the context, quote the relevant steps and link the article in Markdown. If no article answers the ' +
  'question, say so plainly and offer to escalate to a human, asking for the order or ticket number.';

const ESCALATION_REQUEST =
  /\b(escalate|human|real person|speak to (someone|a person)|talk to (someone|a person)|complain|complaint)\b/i;
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
    info: {
      name: 'support',
      description:
        'Customer support: answers from the help-centre knowledge base and escalates to a human',
      usesSteps: false,
    },
    prepare: (turn) => prepareSupport(finderFor(kb, turn), turn),
    composeOffline: composeSupport,
  };
}

/** What support searches in an organization's own knowledge base. */
const SUPPORT_KINDS: CollectionKind[] = ['articles', 'documents'];
/** Passages shown from the organization's articles: the best and one runner-up. */
const SUPPORT_RESULTS = 2;

type Finder = (query: string) => Promise<{ context: ContextItem[]; signals?: TurnSignals }>;

/** The organization's own articles when it has some, else the shipped help centre. */
function finderFor(kb: KnowledgeBase, turn: Turn): Finder {
  const knowledge = turn.knowledge;
  if (knowledge?.has(SUPPORT_KINDS)) {
    return async (query) => {
      const retrieval = await knowledge.search(query, SUPPORT_KINDS);
      const results = retrieval.results.slice(0, SUPPORT_RESULTS);
      return {
        context: results.map((found): ContextItem => ({ kind: 'knowledge', found })),
        signals: { knowledge: { ...retrieval, results } },
      };
    };
  }
  return async (query) => ({
    context: kb
      .answer(query)
      .map((hit): ContextItem => ({ kind: 'article', score: hit.score, article: hit.item })),
  });
}

async function prepareSupport(find: Finder, turn: Turn): Promise<PreparedTurn> {
  const newFacts = referencesIn(turn.added);
  const facts = { ...turn.memory.facts, ...newFacts };
  // A message that only gives a number answers our question; the user's question is the one before.
  const factsOnly = onlyStatesReferences(turn.latest);
  const earlierQuestion = factsOnly ? earlierUserMessages(turn.history)[0] : undefined;
  const escalation =
    ESCALATION_REQUEST.test(earlierQuestion ?? turn.latest) ||
    (isConfirmation(turn.latest) && (previousReply(turn.history) ?? '').includes(ESCALATION_OFFER));
  const query = escalation ? CONTACT_QUERY : factsOnly ? earlierQuestion : turn.latest;
  const found = query ? await find(query) : { context: [] };
  const context = found.context;
  const signals: TurnSignals = {
    escalation,
    newFacts,
    earlierQuestion,
    factsOnly,
    ...found.signals,
  };
  // Own knowledge that has no answer: the question goes to a person (support_escalated).
  if (signals.knowledge && context.length === 0 && !escalation && !factsOnly)
    signals.unanswered = true;
  // A person takes over when there is nothing to answer from, or when asked for and we know the case's reference.
  signals.handOver = signals.unanswered || (escalation && knownReference(facts) !== undefined);
  return {
    systemPrompt: `${SYSTEM_PROMPT}${describeFacts(facts)}`,
    context,
    memory: { ...turn.memory, facts },
    signals,
  };
}

function describeFacts(facts: Record<string, string>): string {
  const known = Object.entries(facts).filter(([name]) => name in FACT_LABELS);
  return known.length === 0
    ? ''
    : `\nKnown from this conversation: ${known.map(([n, v]) => `${FACT_LABELS[n]} ${v}`).join(', ')}.`;
}

function composeSupport({ prepared }: OfflineInput): string {
  const { facts } = prepared.memory;
  const articles = prepared.context.flatMap((item) =>
    item.kind === 'article' ? [item.article] : [],
  );
  const parts: string[] = [];
  const noted = Object.entries(prepared.signals.newFacts ?? {}).filter(
    ([name]) => name in FACT_LABELS,
  );
  if (noted.length > 0)
    parts.push(
      `Thanks, I've noted ${noted.map(([n, v]) => `${FACT_LABELS[n]} **${v}**`).join(' and ')}.`,
    );
  if (prepared.signals.earlierQuestion)
    parts.push(`Back to your question: "${quote(prepared.signals.earlierQuestion)}".`);

  const [best, ...related] = articles;
  if (prepared.signals.knowledge && !prepared.signals.escalation)
    parts.push(knowledgeSupportAnswer(prepared));
  else if (prepared.signals.escalation) parts.push(escalationText(facts, best));
  else if (prepared.signals.factsOnly && !prepared.signals.earlierQuestion)
    parts.push('How can I help you with it?');
  else if (best)
    parts.push(
      articleAnswer(best, facts),
      ...related.map((a) => `Related: [${a.title}](${a.url})`),
    );
  else parts.push(noAnswerText(facts));
  return parts.join('\n\n');
}

/** From the organization's own articles: the passages, cited; or the hand-over to a person. */
function knowledgeSupportAnswer(prepared: PreparedTurn): string {
  const found = prepared.context.flatMap((item) => (item.kind === 'knowledge' ? [item.found] : []));
  if (prepared.signals.unanswered) {
    return `I couldn't find an answer to this in our help centre, so I've passed your question to our support team; a person will get back to you.`;
  }
  if (prepared.signals.factsOnly && !prepared.signals.earlierQuestion)
    return 'How can I help you with it?';
  const [best, ...related] = found;
  if (!best) return 'How can I help?';
  return [
    `From ${citation(best)}:`,
    best.passage,
    ...related.map((r) => `Related: ${citation(r)}`),
  ].join('\n\n');
}

function articleAnswer(article: SupportArticle, facts: Record<string, string>): string {
  const steps = article.steps.map((step, i) => `${i + 1}. ${step}`).join('\n');
  const lines = [
    `Here is what our help centre says (**${article.title}**): ${article.summary}`,
    steps,
  ];
  const factName = REFERENCE_FOR_CATEGORY[article.category];
  const reference = factName ? facts[factName] : undefined;
  if (factName && reference) {
    lines.push(
      `For ${FACT_LABELS[factName]} **${reference}** you mentioned, start from that ${FACT_LABELS[factName]} in your account.`,
    );
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

function escalationText(
  facts: Record<string, string>,
  contact: SupportArticle | undefined,
): string {
  const reference = knownReference(facts);
  const link = contact ? ` ([${contact.title}](${contact.url}))` : '';
  if (!reference) {
    return `To get you to a person, I need your order or ticket number first: what is it?${link}`;
  }
  return (
    `To reach a person, email support@switchyard.dev with ${reference} and a short description; the team answers ` +
    `within one business day${link}. I've also passed this conversation on to the team.`
  );
}

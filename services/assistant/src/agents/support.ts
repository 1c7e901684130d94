import { DateTime } from 'luxon';
import type { CollectionKind } from '../knowledge/kinds';
import { resolveDateRange } from '../retrieval/date-phrases';
import { normalize } from '../language/normalize';
import type { RetrievedDocument } from '../retrieval/knowledge-retriever';
import type { AgentProfile } from '../store/profiles/port';
import type { SupportState } from '../store/sessions/port';
import { emptyDialogue } from './dialogue';
import { bareReference, knownReference, referencesIn, REFERENCE_LABELS } from './facts';
import { isConfirmation, isDecline, isSmallTalk } from './intents';
import { citation } from './knowledge-answer';
import { answeringLines, documentText } from './fact-answer';
import { aspectsOf } from './knowledge-answer';
import { blocksOf, openingBlocks, relevantBlocks, type Block } from './passages';
import type {
  Agent,
  AskedFor,
  ContextItem,
  EscalationReason,
  OfflineInput,
  PreparedTurn,
  Turn,
  TurnSignals,
} from './types';

const SYSTEM_PROMPT =
  "You are the organization's customer support agent. Answer only from the help articles in the " +
  'context: quote the steps that answer the question (not the whole article, never its tags or other ' +
  'metadata). If no article answers, say "I can\'t help with that here".';

/** What support searches in an organization's knowledge base. */
const SUPPORT_KINDS: CollectionKind[] = ['articles', 'documents'];
/** Questions in a row without an answer before a person takes over. */
const FAILURES_BEFORE_HANDOVER = 2;

/** Asking for a person, in the four languages. */
const PERSON =
  /\b(human|real person|a person|someone real|live agent|an agent|agent please|representative|operator|supervisor|manager|speak to (someone|somebody|a person|an agent)|talk to (someone|somebody|a person|an agent|a human)|call me|persona real|hablar con (una persona|alguien|un agente)|un humano|mit einem menschen|echten menschen|mitarbeiter sprechen|parler a (quelqu un|un humain|une personne|un conseiller)|un humain)\b/;
/** Anger: words of it, or shouting. */
const ANGER =
  /\b(ridiculous|unacceptable|outrageous|furious|angry|fed up|sick of|worst|terrible|awful|scam|fraud|nobody answers|no one answers|nobody replies|no one replies|no response|never answered|useless|disgusting|incompetent|joke|inaceptable|verguenza|harto|harta|estafa|nadie responde|nadie contesta|indignante|unverschamt|inakzeptabel|frechheit|betrug|niemand antwortet|inacceptable|scandaleux|arnaque|personne ne repond|ras le bol)\b/;
/** Money taken wrongly. */
const BILLING_DISPUTE =
  /\b(charged (me )?twice|double charged|double charge|charged two times|billed twice|overcharged|charged the wrong amount|wrong amount|unauthori[sz]ed (charge|payment)|did ?n t authori[sz]e|dispute|chargeback|cobrado dos veces|cobraron dos veces|doble cargo|cargo duplicado|zweimal (abgebucht|belastet)|doppelt (abgebucht|belastet)|debite deux fois|preleve deux fois|double prelevement)\b/;
/** "that didn't help", "still not working": the last answer failed. */
const NOT_HELPED =
  /\b(did ?n t help|does ?n t help|not helpful|still (not|does ?n t|did ?n t|broken|the same)|does ?n t work|did ?n t work|not working|no me ayuda|sigue sin|hilft nicht|funktioniert (immer noch )?nicht|ne marche (toujours )?pas|ca n aide pas)\b/;

function shouting(text: string): boolean {
  const letters = text.replace(/[^A-Za-z]/g, '');
  return (letters.length >= 12 && letters === letters.toUpperCase()) || /!{2,}|\?!|!\?/.test(text);
}

/** Why this message hands the conversation to a person, if it does (intent from the whole conversation). */
function escalationOf(
  text: string,
  state: SupportState,
  helpedBefore: boolean,
): EscalationReason | undefined {
  const normalized = normalize(text);
  if (BILLING_DISPUTE.test(normalized)) return 'billing_dispute';
  if (ANGER.test(normalized) || (shouting(text) && !isSmallTalk(text))) return 'frustration';
  if (PERSON.test(normalized)) return 'requested_by_user';
  if (state.offered && isConfirmation(text)) return 'offer_accepted';
  if (
    NOT_HELPED.test(normalized) &&
    (state.failures + 1 >= FAILURES_BEFORE_HANDOVER || helpedBefore)
  )
    return 'repeated_failure';
  return undefined;
}

export function createSupportAgent(): Agent {
  return {
    info: {
      name: 'support',
      description:
        'Customer support: answers from the organization’s help articles and hands over to a person',
      usesSteps: false,
      searchedKinds: SUPPORT_KINDS,
    },
    prepare: prepareSupport,
    composeOffline: composeSupport,
  };
}

interface Answer {
  found: RetrievedDocument;
  /** Indexes of the article's blocks quoted. */
  blocks: number[];
}

/** The best article for a question and the passages of it that answer, if any does. */
async function answerFor(
  turn: Turn,
  question: string,
  state: SupportState,
): Promise<Answer | undefined> {
  if (!turn.knowledge?.has(SUPPORT_KINDS)) return undefined;
  const retrieval = await turn.knowledge.search(question, SUPPORT_KINDS);
  // A follow-up ("how long does that take?") may be answered by the article the conversation is about.
  const current = state.article
    ? await turn.knowledge.get(state.article.collection, state.article.id)
    : undefined;
  const candidates = [...retrieval.results.slice(0, 3), ...(current ? [current] : [])];
  // "What does a full service cost?", "are you open on Saturday?": the line with the value,
  // when the passages that share the question's words do not give one.
  const asked = askedIn(question, turn.knowledge.timeZone);
  for (const found of candidates) {
    const body = documentText(found);
    const sameArticle =
      state.article?.id === found.doc.id && state.article.collection === found.collection.name;
    const blocks = relevantBlocks(body, question, sameArticle ? state.article?.quoted : []);
    const valued = asked.aspects.length > 0 ? answeringLines(found, asked) : [];
    const givesValue = blocks.some((b) => valued.some((line) => b.text.includes(line)));
    if (valued.length > 0 && !givesValue) return quoting(found, blocksWith(body, valued));
    if (blocks.length === 0) continue;
    return quoting(found, blocks);
  }
  // Only what was asked ("wann habt ihr offen?"): an article that gives such a value.
  if (asked.aspects.length > 0 && retrieval.results.length === 0) {
    const scanned = (await turn.knowledge.overview(SUPPORT_KINDS, 200)).flatMap((o) => o.samples);
    for (const found of scanned) {
      const valued = answeringLines(found, { ...asked, words: [] });
      if (valued.length > 0) return quoting(found, blocksWith(documentText(found), valued));
    }
  }
  // The best article shares no word with the question: it was found by meaning (an embeddings
  // model); quote the passage that matched, not the whole article.
  const best = retrieval.results[0];
  if (!best) return undefined;
  const fields = best.doc.fields as { body?: string; text?: string };
  const opening = openingBlocks(String(fields.body ?? fields.text ?? ''), best.passage);
  return opening.length > 0 ? quoting(best, opening) : undefined;
}

/** What a question asks for: its aspects, its words, the weekday it names ("open on Sunday?"). */
function askedIn(question: string, timeZone: string): AskedFor {
  const dates = resolveDateRange(question, new Date(), timeZone);
  const oneDay = dates && dates.to.getTime() - dates.from.getTime() <= 86_400_000;
  const weekday = oneDay
    ? DateTime.fromJSDate(dates.from, { zone: timeZone }).weekday - 1
    : undefined;
  return { aspects: aspectsOf(question), words: question.split(/\s+/), weekday };
}

/** The article's blocks a quoted line comes from, or the lines as blocks of their own. */
function blocksWith(body: string, lines: string[]): Block[] {
  const blocks = blocksOf(body);
  return lines
    .map(
      (line, i) =>
        blocks.find((b) => b.text.includes(line.replace(/ …$/, ''))) ?? {
          index: blocks.length + i,
          text: line,
          item: false,
          heading: false,
        },
    )
    .map((b, i) => ({ ...b, text: lines[i] as string }));
}

function quoting(found: RetrievedDocument, blocks: Block[]): Answer {
  return {
    found: { ...found, passage: blocks.map((b) => b.text).join('\n') },
    blocks: blocks.map((b) => b.index),
  };
}

async function prepareSupport(turn: Turn): Promise<PreparedTurn> {
  const dialogue = turn.memory.dialogue ?? emptyDialogue();
  const state: SupportState = { failures: 0, ...dialogue.support };
  const newFacts = referencesIn(turn.added);
  const bare = state.awaitingReference ? bareReference(turn.latest) : undefined;
  if (bare && Object.keys(newFacts).length === 0) newFacts.reference = bare;
  const facts = { ...turn.memory.facts, ...newFacts };
  const signals: TurnSignals = { newFacts };
  const context: ContextItem[] = [];
  const next: SupportState = { ...state, offered: false };
  if (Object.keys(newFacts).length > 0) next.awaitingReference = false;

  const helpedBefore = Boolean(state.article);
  const reason = isSmallTalk(turn.latest)
    ? undefined
    : escalationOf(turn.latest, state, helpedBefore);
  if (isSmallTalk(turn.latest)) signals.greeting = true;
  else if (
    bare ||
    (state.awaitingReference && Object.keys(newFacts).length > 0 && turn.latest.length < 60)
  ) {
    signals.referenceGiven = true;
    // The question the reference was asked for, answered now when it has an answer.
    const answer =
      state.question && !state.escalated ? await answerFor(turn, state.question, next) : undefined;
    if (answer) context.push({ kind: 'knowledge', found: answer.found });
  } else if (reason && !state.escalated) {
    signals.handOver = reason;
    next.escalated = reason;
    next.failures = 0;
    if (!knownReference(facts)) next.awaitingReference = true;
    const answer =
      reason === 'billing_dispute' ? await answerFor(turn, turn.latest, next) : undefined;
    if (answer) context.push({ kind: 'knowledge', found: answer.found });
  } else if (state.offered && isDecline(turn.latest)) {
    signals.declined = true;
  } else if (!turn.knowledge?.has(SUPPORT_KINDS)) {
    signals.noKnowledge = true;
    next.failures = state.failures + 1;
    next.offered = !state.escalated;
    next.question = turn.latest;
  } else {
    const answer = await answerFor(turn, turn.latest, next);
    next.question = turn.latest;
    if (answer) {
      context.push({ kind: 'knowledge', found: answer.found });
      next.failures = 0;
      next.article = {
        collection: answer.found.collection.name,
        id: answer.found.doc.id,
        quoted:
          next.article?.id === answer.found.doc.id
            ? [...new Set([...(next.article.quoted ?? []), ...answer.blocks])]
            : answer.blocks,
      };
    } else {
      signals.unanswered = true;
      next.failures = state.failures + 1;
      if (next.failures >= FAILURES_BEFORE_HANDOVER && !state.escalated) {
        signals.handOver = 'repeated_failure';
        next.escalated = 'repeated_failure';
        if (!knownReference(facts)) next.awaitingReference = true;
      } else next.offered = !state.escalated;
    }
  }
  signals.handedOver = Boolean(state.escalated);
  return {
    systemPrompt: `${SYSTEM_PROMPT}${describeFacts(facts)}${decisionFor(signals)}`,
    context,
    memory: { ...turn.memory, facts, dialogue: { ...dialogue, support: next } },
    signals,
    profile: turn.profile,
  };
}

function describeFacts(facts: Record<string, string>): string {
  const known = Object.entries(facts).filter(([name]) => name in REFERENCE_LABELS);
  return known.length === 0
    ? ''
    : `\nKnown from this conversation: ${known.map(([n, v]) => `${REFERENCE_LABELS[n]} ${v}`).join(', ')}.`;
}

/**
 * What the service decided, for a model to put in words. The decision is the service's: the
 * hand-over message, its contacts and the offer of a person are added after the model's words.
 */
function decisionFor(signals: TurnSignals): string {
  if (signals.handOver)
    return `\nDecision: this conversation is handed to a person now (reason: ${signals.handOver}). Acknowledge the user's message in a sentence or two; the service adds the hand-over message and the contacts after your words.`;
  if (signals.unanswered || signals.noKnowledge)
    return `\nDecision: no article answers this. Say "I can't help with that here"; the service adds the offer of a person after your words.`;
  return '';
}

/** The hand-over in the organization's words and channel (its profile), else a neutral sentence without contact details. */
export function handOverText(profile: AgentProfile | undefined): string {
  const escalation = profile?.escalation;
  const message =
    escalation?.message.trim() ||
    "I've passed this conversation to our support team; a person will follow up with you.";
  const contact = escalation?.contact.trim();
  const channel = escalation?.channel.trim();
  if (!contact) return message;
  return `${message} You can also reach them ${channel ? `by ${channel} ` : ''}at ${contact}.`;
}

/** "Thanks, I've noted order **A-10492**." for the references a message gave (an email is not repeated). */
export function notedReferences(newFacts: Record<string, string> = {}): string | undefined {
  const noted = Object.entries(newFacts).filter(([name]) => name !== 'email');
  if (noted.length === 0) return undefined;
  return `Thanks, I've noted ${noted.map(([n, v]) => `${REFERENCE_LABELS[n]} **${v}**`).join(' and ')}.`;
}

/** What the agent asks after a hand-over when no reference is known yet. */
export const REFERENCE_QUESTION =
  'So they can find your case, what is your order or booking number?';

/** The offer of a person, in the organization's channel. */
export function offer(profile: AgentProfile | undefined): string {
  const channel = profile?.escalation?.channel.trim();
  return `If you like, I can pass this to a person on our team${channel ? ` (by ${channel})` : ''}: just say yes.`;
}

const APOLOGY: Partial<Record<EscalationReason, string>> = {
  billing_dispute:
    "I'm sorry about the charge; a payment problem needs a person to look at your account.",
  frustration: "I'm sorry this has been frustrating.",
  repeated_failure: "I'm sorry I couldn't find the answer.",
};

function quotedAnswer(found: RetrievedDocument): string {
  return `From ${citation(found)}:\n\n${found.passage}`;
}

function composeSupport({ prepared }: OfflineInput): string {
  const { signals, memory, profile } = prepared;
  const support = memory.dialogue?.support;
  const answer = prepared.context.flatMap((i) => (i.kind === 'knowledge' ? [i.found] : []))[0];
  const parts: string[] = [];
  const noted = notedReferences(signals.newFacts);
  if (noted) parts.push(noted);

  if (signals.greeting) {
    parts.push(
      signals.handedOver
        ? "You're welcome. Our team has your conversation and will follow up."
        : 'Hello! I can answer questions from our help articles, and pass you to a person when you need one. How can I help?',
    );
  } else if (signals.handOver) {
    const apology = APOLOGY[signals.handOver];
    if (apology) parts.push(apology);
    parts.push(handOverText(profile));
    if (answer) parts.push(`Meanwhile, this may help:\n\n${quotedAnswer(answer)}`);
    if (support?.awaitingReference) parts.push(REFERENCE_QUESTION);
  } else if (signals.referenceGiven) {
    if (signals.handedOver) parts.push('I have added it to your case for our team.');
    else if (answer) parts.push(quotedAnswer(answer));
    else parts.push('How can I help you with it?');
  } else if (signals.declined) {
    parts.push('All right. Is there anything else I can help with?');
  } else if (signals.noKnowledge) {
    const reference = knownReference(memory.facts);
    if (reference && !noted) parts.push(`I have your ${reference} noted.`);
    parts.push(
      "I can't help with that here: I don't have any help articles yet.",
      signals.handedOver ? 'Our team already has your conversation.' : offer(profile),
    );
  } else if (signals.unanswered) {
    parts.push(
      "I can't help with that here: none of our help articles covers it.",
      signals.handedOver
        ? 'Our team already has your conversation and will follow up.'
        : offer(profile),
    );
  } else if (answer) {
    parts.push(quotedAnswer(answer));
    const reference = knownReference(memory.facts);
    if (reference)
      parts.push(`For your ${reference.replace(/\*\*/g, '')}, use it when you follow these steps.`);
  } else parts.push('How can I help?');
  return parts.join('\n\n');
}

import { DateTime } from 'luxon';
import type { CollectionKind } from '../knowledge/kinds';
import { ITEM_ASPECTS, RESETS } from '../language/lexicon';
import { firstPhrase, normalize } from '../language/normalize';
import type { KnowledgeQuery } from '../retrieval/knowledge-query';
import type { Retrieval, RetrievedDocument } from '../retrieval/knowledge-retriever';
import type {
  DialogueState,
  DialogueTopic,
  ShownItem,
  StoredConstraints,
} from '../store/sessions/port';
import { answeredConstraints, afterResets, emptyDialogue, fromStored, pointed } from './dialogue';
import { answerScore, answeringLines } from './fact-answer';
import { isClosing, isSmallTalk } from './intents';
import {
  factAnswer,
  greetingAnswer,
  itemAnswer,
  knowledgeAnswer,
  knowledgeItems,
  notFoundAnswer,
  shownItem,
} from './knowledge-answer';
import { filtersOf, ownWords, readTurn, type TurnReading } from './reading';
import type {
  Agent,
  AskedFor,
  ItemAspect,
  OfflineInput,
  PreparedTurn,
  Turn,
  TurnSignals,
} from './types';

const SYSTEM_PROMPT =
  "You are the organization's assistant. Answer only from the records in the context (events, courses, " +
  'articles, documents); when the context has none, say plainly that you have no such information. Dates are in ' +
  "the venue's local time as given. Keep the user's earlier constraints (city, dates, price, audience) " +
  'unless they change them.';

/** A model names what it uses; the service links it (see responders/composition.ts). */
export const CITE = 'Name each record you use by its title.';

/** What the chat agent searches: every collection the agent has. */
const CHAT_KINDS: CollectionKind[] = ['events', 'courses', 'articles', 'documents'];
/** Kinds answered with a line of text rather than listed. */
const TEXT_KINDS: CollectionKind[] = ['articles', 'documents'];
const isListed = (found: RetrievedDocument) =>
  found.doc.kind === 'events' || found.doc.kind === 'courses';
/** Items a list shows at most (and "the second one" can pick from). */
const LIST_LIMIT = 8;
/** Other documents named after an answer from one. */
const SEE_ALSO = 2;
/** Articles and documents of a collection read for a value no search found ("what's your address?"). */
const SCANNED = 200;
/** Words of a question the session keeps as its topic (a long message is not kept whole). */
const TOPIC_WORDS = 12;
/** Aspects that are about the organization itself unless the message points at an item. */
const ABOUT_US: ItemAspect[] = ['hours', 'contact'];

export function createChatAgent(): Agent {
  return {
    info: {
      name: 'chat',
      description:
        'General assistant: answers from the organization’s events, courses, articles and documents',
      usesSteps: false,
      searchedKinds: CHAT_KINDS,
    },
    prepare: prepareChat,
    composeOffline: composeChat,
  };
}

/** The weekday a reading names when its dates are one day ("open on Saturday?"); 0 = Monday. */
function weekdayOf(queries: Iterable<KnowledgeQuery>, zone: string): number | undefined {
  for (const q of queries) {
    if (!q.dates) continue;
    const from = DateTime.fromJSDate(q.dates.from, { zone });
    const to = DateTime.fromJSDate(q.dates.to, { zone });
    if (to.diff(from, 'hours').hours <= 24) return from.weekday - 1;
  }
  return undefined;
}

/** The prepared turn about one item: answered from its fields, and in focus afterwards. */
function itemTurn(
  turn: Turn,
  state: DialogueState,
  found: RetrievedDocument,
  asked: AskedFor,
  topic?: DialogueTopic,
): PreparedTurn {
  return {
    systemPrompt: `${SYSTEM_PROMPT} The user asks about one item; answer from its fields and description. ${CITE}`,
    context: [{ kind: 'knowledge', found }],
    // "it", "the second one" leave the conversation's topic as it was; a title names a new one.
    memory: {
      ...turn.memory,
      dialogue: { ...state, ...(topic ? { topic } : {}), focus: shownItem(found) },
    },
    signals: { item: { found, asked } },
  };
}

/**
 * Whether a message without words of its own asks about the item in focus: it points at it ("is
 * it suitable for kids?"), or asks only for a fact of it ("and how much?", "und wo?") without
 * filters that ask for a new list.
 */
function asksAboutFocus(reading: TurnReading, filtered: boolean): boolean {
  if (reading.pointer?.kind === 'focus') return true;
  if (filtered || reading.aspects.length === 0 || reading.addressesUs) return false;
  return reading.aspects.some((a) => !ABOUT_US.includes(a));
}

async function prepareChat(turn: Turn): Promise<PreparedTurn> {
  const state = turn.memory.dialogue ?? emptyDialogue();
  const base = { systemPrompt: SYSTEM_PROMPT, context: [], memory: turn.memory };
  const knowledge = turn.knowledge;
  if (isSmallTalk(turn.latest)) {
    const signals: TurnSignals = {
      greeting: true,
      noKnowledge: !knowledge?.has(CHAT_KINDS),
      closing: isClosing(turn.latest),
    };
    if (knowledge?.has(CHAT_KINDS)) signals.overview = await knowledge.overview(CHAT_KINDS);
    return { ...base, signals };
  }
  if (!knowledge?.has(CHAT_KINDS)) return { ...base, signals: { noKnowledge: true } };

  const reading = readTurn(turn.latest);
  const queries = await knowledge.read(reading.searchText, CHAT_KINDS);
  const own = ownWords(queries);
  const filtered = filtersOf(queries);
  const listFilters = hasListFilters(queries);
  // Its own words or a kind of record ("any workshops?") make a topic of its own.
  const topical = own.length > 0 || [...queries.values()].some((q) => q.tags.length > 0);
  const followUp = Boolean(reading.connective) || !topical;
  // "start over", "forget that": nothing of the conversation is continued.
  const startOver = firstPhrase(normalize(turn.latest), RESETS.all) !== undefined;
  const inheritedTopic = startOver
    ? undefined
    : continuedTopic(reading, state.topic, topical, listFilters);
  // "and on Saturday?", "und der Basisservice?" ask what was asked before; "who is it for?"
  // asks about the item as a whole.
  const askedBefore =
    inheritedTopic ?? (reading.connective && !startOver ? state.topic : undefined);
  const aspects =
    reading.aspects.length > 0 || reading.pointer
      ? reading.aspects
      : ((askedBefore?.aspects as ItemAspect[] | undefined) ?? []);
  const topic: DialogueTopic = {
    words: own.length > 0 ? own.slice(0, TOPIC_WORDS) : (inheritedTopic?.words ?? []),
    aspects,
    ...(inheritedTopic?.listed ? { listed: true } : {}),
  };
  const zone = knowledge.timeZone;
  const audience = [...new Set([...queries.values()].flatMap((q) => q.audience))];
  const asked: AskedFor = {
    aspects,
    words: topic.words,
    weekday: weekdayOf(queries.values(), zone),
    ...(audience.length > 0 ? { audience } : {}),
  };

  // "the second one", "the cheaper one": an item of the list shown.
  if (reading.pointer && reading.pointer.kind !== 'focus') {
    const shown = pointed(reading.pointer, state);
    const found = shown ? await knowledge.get(shown.collection, shown.id) : undefined;
    if (found) return itemTurn(turn, state, found, asked);
    if (reading.pointer.kind === 'position' && !topical)
      return {
        ...base,
        signals: { notShown: { position: reading.pointer.index, shown: state.shown.length } },
      };
  }
  // An item named by its title ("what about the brake tuning evening?").
  const titled = await knowledge.titled(reading.rest, CHAT_KINDS);
  if (titled) return itemTurn(turn, state, titled, asked, topic);
  // "and how much is it?", "und wo?": the item in focus.
  if (own.length === 0 && state.focus && asksAboutFocus(reading, filtered)) {
    const found = await knowledge.get(state.focus.collection, state.focus.id);
    if (found) return itemTurn(turn, state, found, asked);
  }

  // A follow-up keeps every filter; a new topic only the place and the period, and only while
  // they still find something ("how much does a full service cost?" after "anything for kids?").
  const kept = afterResets(turn.latest, followUp ? state.constraints : placeAndPeriod(state));
  const text = [inheritedTopic?.words.join(' ') ?? '', reading.searchText].join(' ').trim();
  // Only what was asked ("when are you open?", "what's your address?"): the organization's own
  // documents that give such a value.
  const aspectOnly = topic.words.length === 0 && aspects.length > 0 && !hasListFilters(queries);
  const search = (inherited: StoredConstraints) =>
    aspectOnly
      ? knowledge.search(
          `${aspects.flatMap((a) => ITEM_ASPECTS[a]).join(' ')} ${text}`,
          TEXT_KINDS,
          fromStored(inherited),
        )
      : knowledge.search(text, CHAT_KINDS, fromStored(inherited));
  let retrieval = await search(kept);
  // Nothing with what was kept: a new topic drops the place and period; a follow-up that asks for
  // an audience of its own, the kind of record it did not name ("und was gibt es für Kinder?"
  // after concerts: any show for kids). "And next weekend?" keeps the kind.
  const wider = !followUp ? {} : audience.length > 0 ? withoutKept(kept, 'tags') : kept;
  if (retrieval.results.length === 0 && Object.keys(wider).length < Object.keys(kept).length)
    retrieval = await search(wider);
  // A document that gives the value whatever its title ("Contacto" for "what's your address?").
  if (aspectOnly && !retrieval.results.some((r) => answeringLines(r, asked, 1).length > 0)) {
    const scanned = (await knowledge.overview(TEXT_KINDS, SCANNED)).flatMap((o) => o.samples);
    const answering = scanned.filter((r) => answeringLines(r, asked, 1).length > 0);
    if (answering.length > 0) retrieval = { ...retrieval, results: answering };
  }
  return answerTurn(turn, state, retrieval, asked, topic, filtered, listFilters);
}

function withoutKept(kept: StoredConstraints, name: keyof StoredConstraints): StoredConstraints {
  const { [name]: _dropped, ...rest } = kept;
  return rest;
}

/** The city and dates of a conversation: what a new topic keeps of it. */
function placeAndPeriod(state: DialogueState): StoredConstraints {
  const { cities, dates } = state.constraints;
  return { ...(cities ? { cities } : {}), ...(dates ? { dates } : {}) };
}

/**
 * The topic a message continues: the one before, when the message has none of its own and speaks
 * of no other ("and on Saturday?", "und am Wochenende?"). Not for a question to the organization
 * ("what's your address?"), nor a list asked for by city or audience after a line of a document.
 */
function continuedTopic(
  reading: TurnReading,
  topic: DialogueTopic | undefined,
  topical: boolean,
  listFilters: boolean,
): DialogueTopic | undefined {
  if (!topic || topical) return undefined;
  const aboutUs =
    reading.pointer?.kind !== 'focus' &&
    reading.aspects.length > 0 &&
    (reading.addressesUs || reading.aspects.every((a) => ABOUT_US.includes(a)));
  if (aboutUs) return undefined;
  if (listFilters && !topic.listed) return undefined;
  return topic;
}

/** Whether the reading filters listed records (city, audience, price, level, tags): a list is asked for. */
function hasListFilters(queries: Map<string, KnowledgeQuery>): boolean {
  return [...queries.values()].some(
    (q) =>
      q.cities.length > 0 ||
      q.audience.length > 0 ||
      q.maxPrice !== undefined ||
      q.levels.length > 0 ||
      q.tags.length > 0,
  );
}

/** Documents in the order they answer what was asked (a question's words and value), best first. */
function byAnswer(results: RetrievedDocument[], asked: AskedFor): RetrievedDocument[] {
  if (asked.words.length === 0 && asked.aspects.length === 0) return results;
  return results
    .map((found, order) => ({ found, order, score: answerScore(found, asked) }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map((s) => s.found);
}

function answerTurn(
  turn: Turn,
  state: DialogueState,
  retrieval: Retrieval,
  asked: AskedFor,
  topic: DialogueTopic,
  filtered: boolean,
  listFilters: boolean,
): PreparedTurn {
  const constraints = answeredConstraints(retrieval) ?? state.constraints;
  // A list is asked for (by kind, place, audience... and no words of its own): a list it is.
  const listAsked = listFilters || asked.words.length === 0;
  const ranked = byAnswer(retrieval.results, asked);
  const best = listAsked ? (ranked.find(isListed) ?? ranked[0]) : ranked[0];
  const remember = (shown: ShownItem[] | undefined, focus: ShownItem | undefined) => ({
    ...turn.memory,
    dialogue: { ...state, constraints, topic, shown: shown ?? state.shown, focus },
  });
  // An article or document answers best: the line of it that says what was asked.
  if (best && !isListed(best)) {
    const also = ranked
      .slice(1)
      .filter((r) => !isListed(r) && answerScore(r, asked) >= 2)
      .slice(0, SEE_ALSO);
    return {
      systemPrompt: `${SYSTEM_PROMPT} ${CITE}`,
      context: [
        { kind: 'knowledge', found: best },
        ...also.map((found) => ({ kind: 'knowledge' as const, found })),
      ],
      memory: remember(undefined, shownItem(best)),
      signals: { fact: { found: best, asked, also } },
    };
  }
  const listed = ranked.filter(isListed).slice(0, LIST_LIMIT);
  const shown = listed.map(shownItem);
  const listedTopic = { ...topic, listed: true };
  const single = listed.length === 1 ? listed[0] : undefined;
  const signals: TurnSignals =
    single && asked.aspects.length > 0
      ? { item: { found: single, asked: { ...asked, audience: undefined } } }
      : listed.length === 0 &&
          !filtered &&
          (asked.words.length > 0 || asked.aspects.length > 0) &&
          retrieval.collections.some((c) => TEXT_KINDS.includes(c.kind))
        ? { notFound: asked }
        : { knowledge: { ...retrieval, results: listed } };
  // Nothing found: the list and the item before stay what "the second one" and "it" point at.
  const focus = listed.length === 0 ? state.focus : single ? shown[0] : undefined;
  const memory = remember(shown.length > 0 ? shown : undefined, focus);
  return {
    systemPrompt: `${SYSTEM_PROMPT} ${CITE}`,
    context: knowledgeItems({ ...retrieval, results: listed }),
    memory: { ...memory, dialogue: { ...memory.dialogue, topic: listedTopic } },
    signals,
  };
}

function composeChat({ prepared }: OfflineInput): string {
  const { signals } = prepared;
  if (signals.greeting) {
    if (signals.closing) return "You're welcome! Ask me any time if there is anything else.";
    return signals.noKnowledge
      ? "Hello! I don't have any event or course information yet, so there is little I can look up for you right now. Once this organization adds its events, courses or documents, I can find them by city, date, price and audience."
      : greetingAnswer(signals.overview ?? []);
  }
  if (signals.noKnowledge)
    return "I don't have any event information yet (no events, courses or documents have been added here), so I can't answer that. Once they are added, I can find them by city, date, price and audience.";
  if (signals.notShown) {
    const { position, shown } = signals.notShown;
    if (shown === 0)
      return "I haven't shown you a list yet. Ask me what you're looking for, and then pick one from the list.";
    return `The list I showed has ${shown === 1 ? 'only 1 item' : `${shown} items`}, so there is no ${position === -1 ? 'last' : `number ${position}`} in it. Which one do you mean?`;
  }
  if (signals.item) return itemAnswer(signals.item.found, signals.item.asked);
  if (signals.fact) return factAnswer(signals.fact.found, signals.fact.asked, signals.fact.also);
  if (signals.notFound) return notFoundAnswer(signals.notFound);
  if (signals.knowledge) return knowledgeAnswer(signals.knowledge);
  return "I'm not sure what you're looking for. Ask me about our events, courses or information, by city, date, price or audience.";
}

import type { Course, EventRecord } from '../data/catalog';
import { CourseSearch } from '../retrieval/course-search';
import {
  EventSearch,
  hasFilters,
  mergeEventQueries,
  parseEventQuery,
  type EventQuery,
} from '../retrieval/event-search';
import type { CollectionKind } from '../knowledge/kinds';
import { describeEventQuery, formatCourse, formatEvent } from './format';
import { knowledgeAnswer, knowledgeItems } from './knowledge-answer';
import { earlierUserMessages, isFollowUp, isGreeting, quote } from './intents';
import type { Agent, ContextItem, OfflineInput, PreparedTurn, Turn, TurnSignals } from './types';

const SYSTEM_PROMPT =
  'You are the Switchyard general assistant. Help with upcoming events (dates, venues, prices) and the ' +
  'course catalogue using only the records in the context; say plainly when something is outside that data. ' +
  'Refer back to earlier questions in the conversation when it helps.';

const EVENT_WORDS = /\b(events?|what'?s on|happening|going on|tickets?|gigs?|shows?)\b/i;
const COURSE_WORDS =
  /\b(courses?|class(es)?|learn(ing)?|lessons?|training|enrol+(ment)?|bootcamp|study)\b/i;
/** Words that ask for courses without saying which; removed before searching the catalogue. */
const GENERIC_COURSE_WORDS =
  /\b(courses?|class(es)?|learn(ing)?|lessons?|training|enrol+|bootcamp|study|available|offer|have|any|which|what|do|you|i|want|to|a|the|some|are|there)\b/gi;
const RECALL = /\b(what did i (just )?ask|what was my (last |previous )?question|remind me)\b/i;

const CAPABILITIES =
  '- find events: "concerts in Berlin", "what\'s on in June"\n' +
  '- browse courses: "Python courses", "what courses do you have?"\n' +
  '- for orders, refunds and tickets, the support agent helps; for building a course, the onboarding agent';

export function createChatAgent(
  eventSearch = new EventSearch(),
  courseSearch = new CourseSearch(),
): Agent {
  return {
    info: {
      name: 'chat',
      description: 'General assistant: events, courses and questions about the service',
      usesSteps: false,
    },
    prepare: (turn) =>
      turn.knowledge?.has(CHAT_KINDS)
        ? prepareFromKnowledge(turn)
        : prepareChat(eventSearch, courseSearch, turn),
    composeOffline: (input) => composeChat(eventSearch, input),
  };
}

/** What the chat agent searches in an organization's own knowledge base. */
const CHAT_KINDS: CollectionKind[] = ['events', 'courses', 'documents'];

/** An organization with its own knowledge: answers come from it (and only it), cited. */
async function prepareFromKnowledge(turn: Turn): Promise<PreparedTurn> {
  const signals: TurnSignals = { greeting: isGreeting(turn.latest) };
  if (signals.greeting)
    return { systemPrompt: SYSTEM_PROMPT, context: [], memory: turn.memory, signals };
  const retrieval = await (turn.knowledge as NonNullable<Turn['knowledge']>).search(
    turn.latest,
    CHAT_KINDS,
  );
  signals.knowledge = retrieval;
  return {
    systemPrompt: `${SYSTEM_PROMPT} ${CITE}`,
    context: knowledgeItems(retrieval),
    memory: turn.memory,
    signals,
  };
}

/** Asks a model to cite, and only what was retrieved. */
export const CITE =
  'Cite every record you use as a Markdown link [title](url) exactly as given in the context; never link to anything else.';

function asksForEvents(text: string, query: EventQuery): boolean {
  return hasFilters(query) || EVENT_WORDS.test(text);
}

/** The events question of this turn, completed by the earlier one for a follow-up ("and in June?"). */
function eventQuestion(turn: Turn): { query: EventQuery; earlier?: string } | undefined {
  const query = parseEventQuery(turn.latest);
  const earlier = earlierUserMessages(turn.history)[0];
  if (earlier && isFollowUp(turn.latest)) {
    const previous = parseEventQuery(earlier);
    if (asksForEvents(earlier, previous))
      return { query: mergeEventQueries(previous, query), earlier };
  }
  return asksForEvents(turn.latest, query) ? { query } : undefined;
}

function prepareChat(
  eventSearch: EventSearch,
  courseSearch: CourseSearch,
  turn: Turn,
): PreparedTurn {
  const signals: TurnSignals = { greeting: isGreeting(turn.latest) };
  const context: ContextItem[] = [];
  const events = signals.greeting ? undefined : eventQuestion(turn);
  if (events) {
    signals.eventQuery = events.query;
    signals.earlierQuestion = events.earlier;
    context.push(
      ...eventSearch.find(events.query).map((event): ContextItem => ({ kind: 'event', event })),
    );
  } else if (!signals.greeting && COURSE_WORDS.test(turn.latest)) {
    signals.courseQuestion = true;
    const subject = turn.latest.replace(GENERIC_COURSE_WORDS, ' ');
    context.push(
      ...courseSearch.find(subject).map((course): ContextItem => ({ kind: 'course', course })),
    );
  } else {
    signals.earlierQuestion = earlierUserMessages(turn.history)[0];
  }
  return { systemPrompt: SYSTEM_PROMPT, context, memory: turn.memory, signals };
}

function composeChat(eventSearch: EventSearch, { prepared, history }: OfflineInput): string {
  const { signals } = prepared;
  const latest = [...history].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (signals.greeting) return greetingText(signals.earlierQuestion);
  if (signals.knowledge) return knowledgeAnswer(signals.knowledge);
  if (signals.eventQuery) {
    const events = prepared.context.flatMap((i) => (i.kind === 'event' ? [i.event] : []));
    return eventsText(eventSearch, signals.eventQuery, events, signals.earlierQuestion);
  }
  if (signals.courseQuestion)
    return coursesText(prepared.context.flatMap((i) => (i.kind === 'course' ? [i.course] : [])));
  if (RECALL.test(latest)) {
    return signals.earlierQuestion
      ? `Your previous question was: "${quote(signals.earlierQuestion)}". Want me to pick it up again?`
      : 'This is the first question of our conversation, so there is nothing earlier to recall.';
  }
  return fallbackText(latest, signals.earlierQuestion);
}

function greetingText(earlier: string | undefined): string {
  const back = earlier ? `\n\nWelcome back! Earlier you asked: "${quote(earlier)}".` : '';
  return `Hello! I'm the Switchyard assistant (offline builtin engine). I can:\n${CAPABILITIES}${back}\n\nWhat would you like to do?`;
}

function eventsText(
  eventSearch: EventSearch,
  query: EventQuery,
  events: EventRecord[],
  earlier?: string,
): string {
  const intro = earlier ? `Following up on "${quote(earlier)}", h` : 'H';
  const what = describeEventQuery(query);
  if (events.length === 0) {
    return `${earlier ? `Following up on "${quote(earlier)}": ` : ''}I found no ${what} in the events database. It lists events in ${eventSearch.cities().join(', ')}; try another city, month or kind of event.`;
  }
  return `${intro}ere is what I found for ${what}:\n${events.map(formatEvent).join('\n')}\n\nShall I tell you more about one of them?`;
}

function coursesText(courses: Course[]): string {
  return `From our course catalogue:\n${courses.map(formatCourse).join('\n')}\n\nWant details on enrolment for one of them? The support agent can also help with enrolment questions.`;
}

function fallbackText(latest: string, earlier?: string): string {
  const back = earlier
    ? `\n\nEarlier you asked: "${quote(earlier)}"; I'm happy to continue with that.`
    : '';
  return (
    `I'm the offline builtin engine, so I can't answer open questions like "${quote(latest, 60)}" myself. ` +
    `Here is what I can help with:\n${CAPABILITIES}${back}`
  );
}

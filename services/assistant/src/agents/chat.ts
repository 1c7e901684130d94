import type { CollectionKind } from '../knowledge/kinds';
import { resolveDateRange } from '../retrieval/date-phrases';
import { answeredConstraints, afterResets, emptyDialogue, fromStored, pointed } from './dialogue';
import { isFollowUp, isSmallTalk, pointerIn } from './intents';
import {
  aspectsOf,
  itemAnswer,
  knowledgeAnswer,
  knowledgeItems,
  shownItem,
} from './knowledge-answer';
import type {
  Agent,
  KnowledgeAccess,
  OfflineInput,
  PreparedTurn,
  Turn,
  TurnSignals,
} from './types';

const SYSTEM_PROMPT =
  "You are the organization's assistant. Answer only from the records in the context (events, courses, " +
  'documents); when the context has none, say plainly that you have no such information. Dates are in ' +
  "the venue's local time as given. Keep the user's earlier constraints (city, dates, price, audience) " +
  'unless they change them.';

/** A model names what it uses; the service links it (see responders/composition.ts). */
export const CITE = 'Name each record you use by its title.';

/** What the chat agent searches in an organization's knowledge base. */
const CHAT_KINDS: CollectionKind[] = ['events', 'courses', 'documents'];
/** Items a list shows at most (and "the second one" can pick from). */
const LIST_LIMIT = 8;

export function createChatAgent(): Agent {
  return {
    info: {
      name: 'chat',
      description:
        'General assistant: answers from the organization’s events, courses and documents',
      usesSteps: false,
    },
    prepare: prepareChat,
    composeOffline: composeChat,
  };
}

/** The item a message is about: one of the list last shown ("the second one"), or one named by its title. */
async function itemOf(turn: Turn, knowledge: KnowledgeAccess) {
  const state = turn.memory.dialogue ?? emptyDialogue();
  const pointer = pointerIn(turn.latest);
  // "this weekend" points at time, not at an item; "and for kids?" asks for a new list.
  const focusable =
    pointer &&
    !(
      pointer.kind === 'focus' &&
      (isFollowUp(turn.latest) || resolveDateRange(turn.latest, new Date(), 'UTC'))
    );
  const shown = focusable ? pointed(pointer, state) : undefined;
  if (shown) return knowledge.get(shown.collection, shown.id);
  return knowledge.titled(turn.latest, CHAT_KINDS);
}

async function prepareChat(turn: Turn): Promise<PreparedTurn> {
  const state = turn.memory.dialogue ?? emptyDialogue();
  const base = { systemPrompt: SYSTEM_PROMPT, context: [], memory: turn.memory };
  const signals: TurnSignals = {};
  if (isSmallTalk(turn.latest)) {
    signals.greeting = true;
    signals.noKnowledge = !turn.knowledge?.has(CHAT_KINDS);
    return { ...base, signals };
  }
  const knowledge = turn.knowledge;
  if (!knowledge?.has(CHAT_KINDS)) return { ...base, signals: { noKnowledge: true } };

  const item = await itemOf(turn, knowledge);
  if (item) {
    signals.item = { found: item, aspects: aspectsOf(turn.latest) };
    return {
      systemPrompt: `${SYSTEM_PROMPT} The user asks about one item; answer from its fields and description. ${CITE}`,
      context: [{ kind: 'knowledge', found: item }],
      memory: { ...turn.memory, dialogue: { ...state, focus: shownItem(item) } },
      signals,
    };
  }

  const inherited = afterResets(turn.latest, state.constraints);
  const retrieval = await knowledge.search(turn.latest, CHAT_KINDS, fromStored(inherited));
  const results = retrieval.results.slice(0, LIST_LIMIT);
  signals.knowledge = { ...retrieval, results };
  const shown = results.map(shownItem);
  return {
    systemPrompt: `${SYSTEM_PROMPT} ${CITE}`,
    context: knowledgeItems({ ...retrieval, results }),
    memory: {
      ...turn.memory,
      dialogue: {
        ...state,
        constraints: answeredConstraints(retrieval) ?? inherited,
        shown: shown.length > 0 ? shown : state.shown,
        focus: shown.length === 1 ? shown[0] : undefined,
      },
    },
    signals,
  };
}

function composeChat({ prepared, history }: OfflineInput): string {
  const { signals } = prepared;
  if (signals.greeting) {
    return signals.noKnowledge
      ? "Hello! I don't have any event or course information yet, so there is little I can look up for you right now. Once this organization adds its events, courses or documents, I can find them by city, date, price and audience."
      : 'Hello! I can find events and courses for you by city, date, price or audience ("concerts in Madrid this weekend under 20 euros"), and tell you more about any of them. What are you looking for?';
  }
  if (signals.noKnowledge)
    return "I don't have any event information yet (no events, courses or documents have been added here), so I can't answer that. Once they are added, I can find them by city, date, price and audience.";
  if (signals.item) {
    const question = [...history].reverse().find((m) => m.role === 'user')?.content ?? '';
    return itemAnswer(signals.item.found, question, signals.item.aspects);
  }
  if (signals.knowledge) return knowledgeAnswer(signals.knowledge);
  return "I'm not sure what you're looking for. Ask me about events or courses, by city, date, price or audience.";
}

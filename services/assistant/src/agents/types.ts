import type { CollectionKind } from '../knowledge/kinds';
import type { KnowledgeQuery, QueryConstraints } from '../retrieval/knowledge-query';
import type { KnowledgeCollection } from '../store/knowledge/port';
import type { Retrieval, RetrievedDocument } from '../retrieval/knowledge-retriever';
import type { AgentProfile, AgentStep } from '../store/profiles/port';
import type { ChatMessage, SessionMemory } from '../store/sessions/port';
import type { CurriculumStep } from './curriculum';

/** A record retrieved for one turn, handed to the responder as grounding. */
export type ContextItem =
  | { kind: 'curriculum_step'; step: CurriculumStep }
  /** A document of the organization's own knowledge base; passage is what the reply quotes. */
  | { kind: 'knowledge'; found: RetrievedDocument };

/** One of the agent's collections with a few of its documents, for a greeting from the organization's own data. */
export interface CollectionOverview {
  collection: KnowledgeCollection;
  /** Current documents: the next events first, else in stored order. */
  samples: RetrievedDocument[];
}

/** The organization's knowledge as an agent may search it (scoped to the caller and the agent's collections). */
export interface KnowledgeAccess {
  /** The organization's time zone (dates in users' words are read in it). */
  timeZone: string;
  /** Whether any searchable collection is of one of these kinds. */
  has(kinds: CollectionKind[]): boolean;
  search(text: string, kinds: CollectionKind[], inherit?: QueryConstraints): Promise<Retrieval>;
  /** How the text reads against each collection of these kinds (filters, remaining words), by name. */
  read(text: string, kinds: CollectionKind[]): Promise<Map<string, KnowledgeQuery>>;
  /**
   * The agent's collections of these kinds, each with some current documents: up to `count`
   * (default 50 of a listed kind, the next events first, and 4 articles or documents).
   */
  overview(kinds: CollectionKind[], count?: number): Promise<CollectionOverview[]>;
  /** The document whose title the text names, if any. */
  titled(text: string, kinds: CollectionKind[]): Promise<RetrievedDocument | undefined>;
  /** One document of the agent's collections (undefined when absent or outside them). */
  get(collection: string, id: string): Promise<RetrievedDocument | undefined>;
}

/** What a question asks of an item or of the organization (see ITEM_ASPECTS). */
export type ItemAspect = 'price' | 'when' | 'where' | 'age' | 'who' | 'hours' | 'contact';

/** What one answer from a document leads with: the aspects asked, the weekday asked about, the words. */
export interface AskedFor {
  aspects: ItemAspect[];
  /** 0 = Monday, when the question names one day ("open on Saturday?"). */
  weekday?: number;
  /** The question's own words (to pick the line of a document that answers). */
  words: string[];
  /** Audiences the question names ("is it suitable for kids?"): answered yes or no from the item. */
  audience?: string[];
}

/** Why a support conversation goes to a person (support_escalated carries it). */
export type EscalationReason =
  'requested_by_user' | 'frustration' | 'billing_dispute' | 'repeated_failure' | 'offer_accepted';

/** What an agent decided about the turn, beyond the history (the builtin engine composes from it). */
export interface TurnSignals {
  /** Only a greeting, thanks or small talk. */
  greeting?: boolean;
  /** chat: the small talk thanks or says goodbye, without a hello. */
  closing?: boolean;
  /** The organization has no knowledge of the kinds this agent answers from. */
  noKnowledge?: boolean;
  /** The answer comes from the organization's knowledge base (a search). */
  knowledge?: Retrieval;
  /** The question is about one item (the second one shown, one named by its title, one found). */
  item?: { found: RetrievedDocument; asked: AskedFor };
  /** chat: the answer is the line of a document that says what was asked ("Full service: 89 EUR"). */
  fact?: { found: RetrievedDocument; asked: AskedFor; also: RetrievedDocument[] };
  /** chat: "the third one" when the list shown had fewer items. */
  notShown?: { position: number; shown: number };
  /** chat: the asked fact is in none of the organization's documents. */
  notFound?: AskedFor;
  /** chat: the agent's collections, for a greeting from the organization's own data. */
  overview?: CollectionOverview[];
  /** support: facts stated in this turn (e.g. { orderNumber: 'A-10492' }). */
  newFacts?: Record<string, string>;
  /** support: the message only gives a reference the agent asked for. */
  referenceGiven?: boolean;
  /** support: the conversation goes to a person now (a support_escalated event is sent). */
  handOver?: EscalationReason;
  /** support: the conversation went to a person earlier in the session. */
  handedOver?: boolean;
  /** support: no article answers the question; the reply says so and offers a person. */
  unanswered?: boolean;
  /** support: the user declined the offer of a person. */
  declined?: boolean;
  /** onboarding: the step the user confirmed in this turn. */
  confirmedStep?: number;
  /** onboarding: earlier steps that are not confirmed. */
  openSteps?: number[];
}

/** One Reply call as an agent sees it, after the session history was merged. */
export interface Turn {
  /** Stored plus new messages, ending with the user's latest message. */
  history: ChatMessage[];
  /** The client's messages that were new to the session. */
  added: ChatMessage[];
  /** Content of the latest user message. */
  latest: string;
  step?: number;
  memory: SessionMemory;
  /** The organization's knowledge base; absent when it has none for this agent. */
  knowledge?: KnowledgeAccess;
  /** Steps of a step agent defined as data (else the built-in course curriculum). */
  steps?: AgentStep[];
  /** The organization's profile of this agent (escalation contact and wording), when stored. */
  profile?: AgentProfile;
}

/** The agent's preparation of a turn for a responder. */
export interface PreparedTurn {
  systemPrompt: string;
  context: ContextItem[];
  /** Memory after this turn (facts learnt, dialogue state, onboarding progress). */
  memory: SessionMemory;
  signals: TurnSignals;
  /** The turn's own steps, when the agent defines them. */
  steps?: AgentStep[];
  /** The profile's escalation settings, for the reply's hand-over text. */
  profile?: AgentProfile;
}

export interface AgentInfo {
  name: string;
  description: string;
  usesSteps: boolean;
  /** The kinds of knowledge collections it searches: a collection of another kind is not read. */
  searchedKinds: CollectionKind[];
  /** How many steps a step agent has (default: the five of the onboarding curriculum). */
  steps?: number;
}

export interface OfflineInput {
  prepared: PreparedTurn;
  history: ChatMessage[];
  step?: number;
}

/** An agent profile: what it knows (retrieval, memory) and how the builtin engine answers for it. */
export interface Agent {
  readonly info: AgentInfo;
  prepare(turn: Turn): PreparedTurn | Promise<PreparedTurn>;
  /** The offline builtin engine's reply for this agent. */
  composeOffline(input: OfflineInput): string;
}

import type {
  Course,
  CourseTemplate,
  CurriculumStep,
  EventRecord,
  SupportArticle,
} from '../data/catalog';
import type { CollectionKind } from '../knowledge/kinds';
import type { EventQuery } from '../retrieval/event-search';
import type { Retrieval, RetrievedDocument } from '../retrieval/knowledge-retriever';
import type { AgentStep } from '../store/profiles/port';
import type { ChatMessage, SessionMemory } from '../store/sessions/port';

/** A record retrieved for one turn, handed to the responder as grounding. */
export type ContextItem =
  | { kind: 'article'; score: number; article: SupportArticle }
  | { kind: 'event'; event: EventRecord }
  | { kind: 'course'; course: Course }
  | { kind: 'curriculum_step'; step: CurriculumStep }
  | { kind: 'course_template'; template: CourseTemplate }
  /** A document of the organization's own knowledge base. */
  | { kind: 'knowledge'; found: RetrievedDocument };

/** The organization's knowledge as an agent may search it (scoped to the caller and the agent's collections). */
export interface KnowledgeAccess {
  /** Whether any searchable collection is of one of these kinds. */
  has(kinds: CollectionKind[]): boolean;
  search(text: string, kinds: CollectionKind[]): Promise<Retrieval>;
  /** One document of the agent's collections (undefined when absent or outside them). */
  get(collection: string, id: string): Promise<RetrievedDocument | undefined>;
}

/** What an agent noticed about the turn, beyond the history (used by the builtin engine). */
export interface TurnSignals {
  greeting?: boolean;
  /** chat: the question asked for events (after merging a follow-up into the earlier question). */
  eventQuery?: EventQuery;
  /** chat: the question asked for courses. */
  courseQuestion?: boolean;
  /** An earlier user question this turn follows up on or that the reply refers back to. */
  earlierQuestion?: string;
  /** support: the user asked to reach a person, or accepted the offer. */
  escalation?: boolean;
  /** support: the message only states a reference number (answering our question, or opening the conversation). */
  factsOnly?: boolean;
  /** support: facts stated in this turn (e.g. { orderNumber: 'A-10492' }). */
  newFacts?: Record<string, string>;
  /** onboarding: the step the user confirmed in this turn. */
  confirmedStep?: number;
  /** The answer comes from the organization's knowledge base (the context's knowledge items). */
  knowledge?: Retrieval;
  /** support: no article answers the question (the reply offers a person). */
  unanswered?: boolean;
  /** support: the conversation goes to a person (a support_escalated event is sent). */
  handOver?: boolean;
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
  /** Steps of a step agent defined as data (else the shipped curriculum guide). */
  steps?: AgentStep[];
}

/** The agent's preparation of a turn for a responder. */
export interface PreparedTurn {
  systemPrompt: string;
  context: ContextItem[];
  /** Memory after this turn (facts learnt, onboarding progress). */
  memory: SessionMemory;
  signals: TurnSignals;
  /** The turn's own steps, when the agent defines them. */
  steps?: AgentStep[];
}

export interface AgentInfo {
  name: string;
  description: string;
  usesSteps: boolean;
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

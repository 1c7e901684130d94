/**
 * The interface's vocabularies, declared once: the gateway's JSON Schemas and the services that
 * act on the values import them from here (`@switchyard/shared/contracts`).
 */

/** Formats a text can be asked in (generate `format`, transform `target_format`/`original_format`). */
export const TEXT_FORMATS = [
  'paragraph',
  'bullet_list',
  'numbered_list',
  'markdown',
  'json',
  'csv',
  'html',
  'plain',
] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

/** What `POST /api/v2/ai/content/transform` can do. */
export const TRANSFORM_ACTIONS = ['summarize', 'reformat', 'translate'] as const;
export type TransformAction = (typeof TRANSFORM_ACTIONS)[number];

/** A summary's `target_length`. */
export const SUMMARY_LENGTHS = ['short', 'medium', 'long'] as const;
export type SummaryLength = (typeof SUMMARY_LENGTHS)[number];

/** The catalogs recommendations serve. */
export const CATALOGS = ['ecommerce', 'ticketing', 'education'] as const;
export type Catalog = (typeof CATALOGS)[number];

/** What a user did with an item (the interactions ingest). */
export const INTERACTION_TYPES = [
  'view',
  'click',
  'cart',
  'purchase',
  'ticket',
  'enroll',
  'complete',
  'rating',
] as const;
export type InteractionType = (typeof INTERACTION_TYPES)[number];

/** Whose behaviour an organization's agent builds on. */
export const BASE_AGENTS = ['chat', 'support', 'onboarding'] as const;
export type BaseAgent = (typeof BASE_AGENTS)[number];

/** Tools an agent's tool-calling model may be given. */
export const AGENT_TOOLS = ['search_knowledge', 'recommend', 'get_item'] as const;
export type AgentTool = (typeof AGENT_TOOLS)[number];

/**
 * What an organization sets on an agent profile (PUT /api/v2/agents/{name}; the name is the path
 * segment): the gateway's schema declares exactly these, the assistant stores and answers them.
 */
export const AGENT_PROFILE_FIELDS = [
  'description',
  'instructions',
  'model',
  'collections',
  'tools',
  'greeting',
  'steps',
  'base',
  'escalation',
] as const;
export type AgentProfileField = (typeof AGENT_PROFILE_FIELDS)[number];

/**
 * true when two types name the same fields, as where one layer hands a value on as another's
 * type (a body as a stored record, a record as a proto message); the hand-over checks the fields'
 * types.
 */
export type SameFields<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [
  never,
]
  ? true
  : false;
/** Compiles only for true: `type XAgrees = Agree<SameFields<X, Y>>` fails the build on a drift. */
export type Agree<T extends true> = T;

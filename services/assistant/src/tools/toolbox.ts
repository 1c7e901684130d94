import type { CallContext } from '@switchyard/shared';
import type { KnowledgeAccess } from '../agents/types';
import type { Recommender } from '../clients';
import { COLLECTION_KINDS } from '../knowledge/kinds';
import { titleOf, urlOf } from '../knowledge/documents';
import type { RetrievedDocument } from '../retrieval/knowledge-retriever';

/** A function offered to a tool-calling model. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The tools of one turn and what they retrieved (so the reply may cite it). */
export interface Toolbox {
  definitions: ToolDefinition[];
  /** Runs a call; the result (or an error) is JSON text for the model, never an exception. */
  run(name: string, argumentsJson: string): Promise<string>;
  /** Documents the tools returned, in order. */
  readonly retrieved: RetrievedDocument[];
}

const DEFINITIONS: Record<string, ToolDefinition> = {
  search_knowledge: {
    name: 'search_knowledge',
    description:
      "Search the organization's knowledge base (events, courses, articles, documents). Dates, cities, prices and levels in the query are applied as filters; past events are never returned.",
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description:
            'What to look for, in the user\'s words (e.g. "concerts in Berlin this weekend")',
        },
        kind: {
          type: 'string',
          enum: [...COLLECTION_KINDS],
          description: 'Only collections of this kind',
        },
      },
      required: ['query'],
    },
  },
  get_item: {
    name: 'get_item',
    description:
      'Read one document of the knowledge base in full, by collection and id (from search_knowledge results).',
    parameters: {
      type: 'object',
      properties: { collection: { type: 'string' }, id: { type: 'string' } },
      required: ['collection', 'id'],
    },
  },
  recommend: {
    name: 'recommend',
    description:
      'Personalised recommendations for the current user from the recommendation service ("what should I attend or take next").',
    parameters: {
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 10 },
        catalog: { type: 'string', enum: ['ecommerce', 'ticketing', 'education'] },
        current_item_id: { type: 'string', description: 'An item the user is looking at' },
      },
    },
  },
};

/** Search results a model reads: enough to answer and cite. */
function resultView(found: RetrievedDocument) {
  return {
    collection: found.collection.name,
    id: found.doc.id,
    title: titleOf(found.doc),
    url: urlOf(found.doc) ?? null,
    text: found.passage,
  };
}

export interface ToolboxDeps {
  tools: string[];
  knowledge?: KnowledgeAccess;
  recommender?: Recommender;
  userId: string;
  context: CallContext;
}

function parseArguments(json: string): Record<string, unknown> {
  const value = JSON.parse(json || '{}') as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('arguments must be a JSON object');
  return value as Record<string, unknown>;
}

/** The agent's tools for one turn, bound to the caller's organization, user and the agent's collections. */
export function createToolbox(deps: ToolboxDeps): Toolbox | undefined {
  const definitions = deps.tools.flatMap((name) => (DEFINITIONS[name] ? [DEFINITIONS[name]] : []));
  if (definitions.length === 0) return undefined;
  const retrieved: RetrievedDocument[] = [];

  const handlers: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
    search_knowledge: async (args) => {
      if (!deps.knowledge) return { results: [], note: 'this agent has no knowledge collections' };
      const kind =
        typeof args.kind === 'string' && (COLLECTION_KINDS as readonly string[]).includes(args.kind)
          ? [args.kind]
          : [...COLLECTION_KINDS];
      const found = (
        await deps.knowledge.search(
          String(args.query ?? ''),
          kind as (typeof COLLECTION_KINDS)[number][],
        )
      ).results;
      retrieved.push(...found);
      return { results: found.map(resultView) };
    },
    get_item: async (args) => {
      const found = await deps.knowledge?.get(String(args.collection ?? ''), String(args.id ?? ''));
      if (!found)
        return { error: `no document ${String(args.id)} in collection ${String(args.collection)}` };
      retrieved.push(found);
      return { ...resultView(found), fields: found.doc.fields };
    },
    recommend: async (args) => {
      if (!deps.recommender) return { error: 'recommendations are not available' };
      const response = await deps.recommender.recommend(
        {
          user_id: deps.userId,
          num_recommendations: typeof args.limit === 'number' ? args.limit : 5,
          catalog: typeof args.catalog === 'string' ? args.catalog : '',
          current_item_id: typeof args.current_item_id === 'string' ? args.current_item_id : '',
        },
        deps.context,
      );
      return {
        recommendations: response.recommendations.map((r) => ({
          itemId: r.item_id,
          title: r.item?.title ?? '',
          score: r.score,
          reason: r.reason,
        })),
      };
    },
  };

  return {
    definitions,
    retrieved,
    async run(name, argumentsJson) {
      const handler = definitions.some((d) => d.name === name) ? handlers[name] : undefined;
      if (!handler)
        return JSON.stringify({
          error: `unknown tool ${name}; available: ${definitions.map((d) => d.name).join(', ')}`,
        });
      try {
        return JSON.stringify(await handler(parseArguments(argumentsJson)));
      } catch (error) {
        return JSON.stringify({ error: (error as Error).message });
      }
    },
  };
}

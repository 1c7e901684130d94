import { AppError } from '@switchyard/shared';
import type { CollectionKind } from '../knowledge/kinds';
import type { KnowledgeStore } from '../store/knowledge/port';
import { zoned, type KnowledgeRetriever } from '../retrieval/knowledge-retriever';
import type { AgentProfile, AgentProfileStore } from '../store/profiles/port';
import { isSmallTalk } from './intents';
import type { AgentRegistry } from './registry';
import type { Agent, AgentInfo, KnowledgeAccess } from './types';

/** An agent as it answers for one organization: the behaviour, and its profile when stored as data. */
export interface ResolvedAgent {
  agent: Agent;
  profile?: AgentProfile;
}

/** A stored profile on top of its base behaviour: its instructions lead, its greeting answers greetings. */
export function profileAgent(base: Agent, profile: AgentProfile): Agent {
  return {
    info: {
      name: profile.name,
      description: profile.description || base.info.description,
      usesSteps: base.info.usesSteps,
      searchedKinds: base.info.searchedKinds,
      ...(base.info.usesSteps && profile.steps.length > 0 ? { steps: profile.steps.length } : {}),
    },
    prepare: async (turn) => {
      const prepared = await base.prepare({
        ...turn,
        steps: profile.steps.length > 0 ? profile.steps : undefined,
        profile,
      });
      const greeting = Boolean(profile.greeting) && isSmallTalk(turn.latest);
      return {
        ...prepared,
        systemPrompt: profile.instructions
          ? `${profile.instructions}\n\n${prepared.systemPrompt}`
          : prepared.systemPrompt,
        signals: { ...prepared.signals, greeting: greeting || prepared.signals.greeting },
        steps: profile.steps.length > 0 ? profile.steps : undefined,
        profile,
      };
    },
    composeOffline: (input) =>
      input.prepared.signals.greeting && profile.greeting
        ? profile.greeting
        : base.composeOffline(input),
  };
}

/**
 * Which agent answers `name` for an organization: its stored profile (an override of chat,
 * support or onboarding, or its own agent), else the built-in one; unknown names are 404.
 */
export class AgentDirectory {
  constructor(
    private readonly builtins: AgentRegistry,
    private readonly profiles?: AgentProfileStore,
  ) {}

  async resolve(organization: string, name: string): Promise<ResolvedAgent> {
    const stored = await this.profiles?.get(organization, name);
    if (stored)
      return { agent: profileAgent(this.builtins.get(stored.base), stored), profile: stored };
    if (this.builtins.names().includes(name)) return { agent: this.builtins.get(name) };
    const own = (await this.profiles?.list(organization))?.map((p) => p.name) ?? [];
    const known = [...new Set([...this.builtins.names(), ...own])].sort();
    throw AppError.notFound(`unknown agent profile '${name}'; known: ${known.join(', ')}`);
  }

  /** Built-ins (as overridden) and the organization's own agents, by name. */
  async list(organization: string): Promise<{ agents: AgentInfo[]; profiles: AgentProfile[] }> {
    const profiles = (await this.profiles?.list(organization)) ?? [];
    const names = [...new Set([...this.builtins.names(), ...profiles.map((p) => p.name)])].sort();
    const agents = await Promise.all(
      names.map(async (name) => (await this.resolve(organization, name)).agent.info),
    );
    return { agents, profiles };
  }
}

/** The organization's knowledge as one agent sees it: its collections, or all of the organization's. */
export async function knowledgeAccess(
  store: KnowledgeStore,
  retriever: KnowledgeRetriever,
  organization: string,
  profile: AgentProfile | undefined,
  timeZone = 'UTC',
): Promise<KnowledgeAccess | undefined> {
  const named = profile && profile.collections.length > 0 ? profile.collections : undefined;
  const collections = (await store.listCollections(organization))
    .filter((c) => !named || named.includes(c.name))
    .map((c) => zoned(c, timeZone));
  if (collections.length === 0) return undefined;
  const kinds = new Set<CollectionKind>(collections.map((c) => c.kind));
  const request = (text: string, wanted: CollectionKind[]) => ({
    organization,
    text,
    collections: collections.map((c) => c.name),
    kinds: wanted,
    timeZone,
    known: collections,
  });
  return {
    timeZone,
    has: (wanted) => wanted.some((k) => kinds.has(k)),
    search: (text, wanted, inherit) => retriever.retrieve({ ...request(text, wanted), inherit }),
    read: (text, wanted) => retriever.read(request(text, wanted)),
    overview: (wanted, count) =>
      Promise.all(
        collections
          .filter((c) => wanted.includes(c.kind))
          .map(async (collection) => ({
            collection,
            samples: (
              await retriever.samples(
                collection,
                count ?? (collection.kind === 'events' || collection.kind === 'courses' ? 50 : 4),
              )
            ).map((doc) => ({
              doc,
              collection,
              passage: doc.chunks[0] ?? '',
            })),
          })),
      ),
    titled: (text, wanted) =>
      retriever.titled(
        collections.filter((c) => wanted.includes(c.kind)),
        text,
      ),
    get: async (name, id) => {
      const collection = collections.find((c) => c.name === name);
      const doc = collection ? await store.getDocument(organization, name, id) : undefined;
      return collection && doc ? { doc, collection, passage: doc.chunks[0] ?? '' } : undefined;
    },
  };
}

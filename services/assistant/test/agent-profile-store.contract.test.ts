import { contractSuite } from '@switchyard/shared/testing';
import { type AgentProfile, type AgentProfileStore } from '../src/store/profiles/port';
import { InMemoryAgentProfileStore } from '../src/store/profiles/memory';
import { MongoAgentProfileStore } from '../src/store/profiles/mongo';
import { expect } from './chai';
import { mongoBackend } from './helpers';

function profile(
  organization: string,
  name: string,
  overrides: Partial<AgentProfile> = {},
): AgentProfile {
  return {
    organization,
    name,
    description: 'Box office',
    instructions: 'Be brief.',
    model: '',
    collections: ['events'],
    tools: ['search_knowledge'],
    greeting: 'Welcome!',
    steps: [{ title: 'Goals', goal: 'Say what you want.', confirm: 'Confirm.' }],
    base: 'onboarding',
    escalation: {
      message: 'A person will call you.',
      contact: '+34 900 000 000',
      channel: 'phone',
    },
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

contractSuite<{ open(): Promise<AgentProfileStore>; cleanup(): Promise<void> }>(
  'AgentProfileStore',
  {
    memory: {
      async create() {
        const store = new InMemoryAgentProfileStore();
        return { open: async () => store, cleanup: async () => undefined };
      },
    },
    mongo: mongoBackend(async (db) => {
      const store = new MongoAgentProfileStore(db);
      await store.ensureIndexes();
      return store;
    }),
  },
  (backend) => {
    it('stores, replaces, lists and deletes profiles per organization; a second replica sees them', async () => {
      const store = await backend().open();
      const replica = await backend().open();
      await store.put(profile('org_a', 'concierge'));
      await store.put(profile('org_a', 'chat', { base: 'chat', steps: [] }));
      await store.put(profile('org_b', 'concierge', { greeting: 'Hi from B' }));
      await store.put(
        profile('org_a', 'concierge', {
          greeting: 'Hello again',
          updatedAt: '2026-11-21T10:00:00.000Z',
        }),
      );
      expect(await replica.get('org_a', 'concierge')).to.deep.equal(
        profile('org_a', 'concierge', {
          greeting: 'Hello again',
          updatedAt: '2026-11-21T10:00:00.000Z',
        }),
      );
      expect((await replica.list('org_a')).map((p) => p.name)).to.deep.equal(['chat', 'concierge']);
      expect((await replica.get('org_b', 'concierge'))?.greeting).to.equal('Hi from B');
      expect(await store.get('org_c', 'concierge')).to.equal(undefined);
      expect(await replica.delete('org_a', 'concierge')).to.equal(true);
      expect(await store.delete('org_a', 'concierge')).to.equal(false);
      expect((await store.list('org_a')).map((p) => p.name)).to.deep.equal(['chat']);
      expect((await store.list('org_b')).map((p) => p.name)).to.deep.equal(['concierge']);
    });
  },
);

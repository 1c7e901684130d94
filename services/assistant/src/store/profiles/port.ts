import { BASE_AGENTS, type BaseAgent } from '@switchyard/shared/contracts';

/** One step of a step agent (e.g. onboarding): what it is about and what the user confirms. */
export interface AgentStep {
  title: string;
  goal: string;
  confirm: string;
}

/** The hand-over in the organization's words: message, contact (email, phone, URL) and channel. */
export interface Escalation {
  message: string;
  contact: string;
  channel: string;
}

export { BASE_AGENTS, type BaseAgent };

/** An organization's agent, as data: an override of chat/support/onboarding, or its own. */
export interface AgentProfile {
  organization: string;
  /** The {agent} path segment. */
  name: string;
  description: string;
  /** Instructions that lead the system prompt. */
  instructions: string;
  /** '' uses the service's default model. */
  model: string;
  /** Knowledge collections it searches; empty: every collection of the organization of the kinds its base uses. */
  collections: string[];
  /** Tools a tool-calling model may use: search_knowledge, recommend, get_item. */
  tools: string[];
  /** The reply to a bare greeting. */
  greeting: string;
  steps: AgentStep[];
  /** Whose behaviour it builds on. */
  base: BaseAgent;
  /** How a conversation is handed to a person; empty strings are omitted from replies. */
  escalation: Escalation;
  createdAt: string;
  updatedAt: string;
}

/** Agent profiles, always scoped by organization. */
export interface AgentProfileStore {
  /** Creates or replaces by (organization, name). */
  put(profile: AgentProfile): Promise<void>;
  get(organization: string, name: string): Promise<AgentProfile | undefined>;
  /** By name. */
  list(organization: string): Promise<AgentProfile[]>;
  delete(organization: string, name: string): Promise<boolean>;
}

export const NO_ESCALATION: Escalation = { message: '', contact: '', channel: '' };

/** A profile as read back: fields added since it was stored get their defaults. */
export function withDefaults(profile: AgentProfile): AgentProfile {
  return { ...profile, escalation: { ...NO_ESCALATION, ...profile.escalation } };
}

import type { ApiOptions, ApiResponse } from '../../support/http';

/** One user turn and what its reply must (not) hold. */
export interface EvalTurn {
  /** What the user says. */
  user: string;
  /** Step-based agents only. */
  step?: number;
  /** What must appear in the reply (case-insensitive); a list is any one of its wordings. */
  facts?: Array<string | string[]>;
  /** What must not appear (a wrong item, city or date; tags; the whole article). */
  forbidden?: string[];
  /** Whether this turn hands the conversation to a person (support_escalated). */
  escalate?: boolean;
  /** The expected next_step (null after the last step). */
  nextStep?: number | null;
}

export interface EvalConversation {
  id: string;
  /** Key of the organization in its set. */
  org: string;
  agent: string;
  /** Part of the short form. */
  short?: boolean;
  turns: EvalTurn[];
}

/** Calls the gateway as one organization (its API key). */
export type OrgApi = (path: string, options?: ApiOptions) => Promise<ApiResponse>;

/** A made-up business, created through the admin API and loaded through the public API. */
export interface EvalOrganization {
  id: string;
  name: string;
  timeZone: string;
  /** Strings of this organization's data: another organization's answer must not contain them. */
  own: string[];
  /** The support profile's hand-over, when it sets one: every escalation must carry both. */
  escalation?: { message: string; contact: string };
  /** Imports its data and stores its agent profiles, as a customer would. */
  load(api: OrgApi): Promise<void>;
}

/** A set of conversations over its own organizations, at its own date. */
export interface EvalSet {
  name: 'development' | 'held-out';
  /** The date the mesh runs at ("this weekend" is read against it). */
  now: Date;
  organizations: Record<string, EvalOrganization>;
  conversations: EvalConversation[];
  /** Text of the vendor's own demo data and contacts: never in any answer. */
  vendorStrings: string[];
}

/** Fails loudly when a set-up call does not succeed (a broken set must not score). */
export async function ok(what: string, response: Promise<ApiResponse>): Promise<ApiResponse> {
  const res = await response;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

/** Creates a collection and imports rows as JSON Lines, CSV or a JSON document batch. */
export async function importCollection(
  api: OrgApi,
  collection: { name: string; kind: string; timeZone?: string },
  data: { jsonl: object[] } | { csv: string } | { json: object[] },
): Promise<void> {
  await ok(
    `collection ${collection.name}`,
    api('/api/v2/knowledge/collections', { body: collection }),
  );
  const path = `/api/v2/knowledge/collections/${collection.name}`;
  if ('json' in data) {
    await ok(
      `documents ${collection.name}`,
      api(`${path}/documents`, { body: { documents: data.json } }),
    );
    return;
  }
  const [rawBody, contentType] =
    'csv' in data
      ? [data.csv, 'text/csv']
      : [data.jsonl.map((row) => JSON.stringify(row)).join('\n'), 'application/x-ndjson'];
  await ok(`import ${collection.name}`, api(`${path}/import`, { rawBody, contentType }));
}

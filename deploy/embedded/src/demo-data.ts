import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The demo collections: what a developer trying `npm start` can ask the dev organization's assistants about. */
const COLLECTIONS = [
  { name: 'demo-events', kind: 'events', file: 'events.jsonl', timeZone: 'Europe/Berlin' },
  { name: 'demo-courses', kind: 'courses', file: 'courses.jsonl', timeZone: '' },
  { name: 'demo-help-centre', kind: 'articles', file: 'articles.jsonl', timeZone: '' },
] as const;

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** Events moved by whole weeks (weekdays kept) so that the earliest is still to come. */
export function upcoming(lines: string[], now: Date): string[] {
  const events = lines.map((line) => JSON.parse(line) as { startsAt: string });
  const earliest = Math.min(...events.map((e) => Date.parse(e.startsAt)));
  const weeks = earliest >= now.getTime() ? 0 : Math.ceil((now.getTime() - earliest) / WEEK_MS);
  return events.map((e) => {
    const shifted = new Date(Date.parse(e.startsAt) + weeks * WEEK_MS);
    // Keep the published offset: the venue's local time stays as it was.
    const offset = /([+-]\d\d:\d\d|Z)$/.exec(e.startsAt)?.[1] ?? 'Z';
    const local = new Date(shifted.getTime() + offsetMs(offset)).toISOString().slice(0, 19);
    return JSON.stringify({ ...e, startsAt: `${local}${offset}` });
  });
}

function offsetMs(offset: string): number {
  if (offset === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const [h, m] = offset.slice(1).split(':').map(Number) as [number, number];
  return sign * (h * 60 + m) * 60_000;
}

/**
 * Imports the demo data set into the dev organization the way a customer imports theirs: through
 * the gateway's knowledge API with the organization's key. Embedded mode only; no other
 * organization sees it, and no code path reads it otherwise.
 */
export async function importDemoData(gatewayUrl: string, apiKey: string, now: Date): Promise<void> {
  const dir = join(__dirname, '..', '..', 'demo');
  const auth = { authorization: `X-API-Key ${apiKey}` };
  for (const collection of COLLECTIONS) {
    const created = await fetch(`${gatewayUrl}/api/v2/knowledge/collections`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: collection.name,
        kind: collection.kind,
        ...(collection.timeZone ? { timeZone: collection.timeZone } : {}),
      }),
    });
    if (created.status !== 201 && created.status !== 409)
      throw new Error(`demo data: creating ${collection.name} answered ${created.status}`);
    const lines = readFileSync(join(dir, collection.file), 'utf8').split('\n').filter(Boolean);
    const body = (collection.kind === 'events' ? upcoming(lines, now) : lines).join('\n');
    const imported = await fetch(
      `${gatewayUrl}/api/v2/knowledge/collections/${collection.name}/import`,
      { method: 'POST', headers: { ...auth, 'content-type': 'application/x-ndjson' }, body },
    );
    if (imported.status !== 200)
      throw new Error(`demo data: importing ${collection.name} answered ${imported.status}`);
  }
}

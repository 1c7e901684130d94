import { randomBytes, randomUUID } from 'node:crypto';

/** Sortable-enough, unique ids with a type prefix: req_..., wh_..., evt_... */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(8).toString('hex')}`;
}

export function newUuid(): string {
  return randomUUID();
}

import { AppError } from '@switchyard/shared';

/** A scalar a filter compares with. */
export type FilterValue = string | number | boolean | null;

/**
 * One condition of a webhook's payload filter: the value at `path` (dotted, into the delivered
 * body: "data.country") is one of `in`. Stored in this form because the API's ("data.country",
 * "$in") are not valid MongoDB field names.
 */
export interface FilterCondition {
  path: string;
  in: FilterValue[];
}

const MAX_CONDITIONS = 20;
const MAX_VALUES = 100;
const PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * The filter of a registration, as JSON text: `{"<dotted path>": <value> | {"$in": [values]}}`,
 * every condition must hold. Values are strings, numbers, booleans or null. "" or "{}": none.
 */
export function parseFilter(json: string, field = '/filter'): FilterCondition[] | undefined {
  if (!json) return undefined;
  let filter: unknown;
  try {
    filter = JSON.parse(json);
  } catch {
    throw AppError.invalid('filter is not valid JSON', field, 'not JSON');
  }
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    throw AppError.invalid('filter must be an object of paths', field, 'must be an object');
  const entries = Object.entries(filter);
  if (entries.length === 0) return undefined;
  if (entries.length > MAX_CONDITIONS)
    throw AppError.invalid(`filter has over ${MAX_CONDITIONS} paths`, field, 'too many paths');
  return entries.map(([path, condition]) => {
    const at = `${field}/${path.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!PATH.test(path))
      throw AppError.invalid(`filter path "${path}" must be dotted names (data.country)`, at);
    return { path, in: valuesOf(condition, at) };
  });
}

function valuesOf(condition: unknown, at: string): FilterValue[] {
  if (isScalar(condition)) return [condition];
  if (typeof condition === 'object' && condition !== null && !Array.isArray(condition)) {
    const keys = Object.keys(condition);
    const list = (condition as { $in?: unknown }).$in;
    if (keys.length !== 1 || keys[0] !== '$in' || !Array.isArray(list)) {
      throw AppError.invalid(
        `filter operators are equality (a value) and $in (a list); found ${keys.join(', ') || 'none'}`,
        at,
        'unsupported operator',
      );
    }
    if (list.length === 0 || list.length > MAX_VALUES || !list.every(isScalar)) {
      throw AppError.invalid(
        `$in takes 1 to ${MAX_VALUES} strings, numbers, booleans or nulls`,
        `${at}/$in`,
        'invalid list',
      );
    }
    return list;
  }
  throw AppError.invalid(
    'a filter value is a string, number, boolean or null, or {"$in": [...]}',
    at,
    'invalid value',
  );
}

function isScalar(value: unknown): value is FilterValue {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** The API form of stored conditions (equality for one value, else $in). */
export function filterView(conditions: FilterCondition[]): Record<string, unknown> {
  return Object.fromEntries(
    conditions.map((c) => [c.path, c.in.length === 1 ? c.in[0] : { $in: c.in }]),
  );
}

/**
 * Whether a body passes every condition. A missing path fails (unless null is listed); an array
 * at the path passes when one of its elements is listed.
 */
export function passesFilter(conditions: FilterCondition[] | undefined, body: object): boolean {
  if (!conditions) return true;
  return conditions.every((condition) => {
    const value = valueAt(body, condition.path);
    const candidates = Array.isArray(value) ? value : [value ?? null];
    return candidates.some((candidate) => condition.in.includes(candidate as FilterValue));
  });
}

function valueAt(body: object, path: string): unknown {
  let current: unknown = body;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part))
      return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

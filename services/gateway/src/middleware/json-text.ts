/**
 * JSON text read before and while it is parsed, so that a large body never holds the event loop
 * for long: its shape measured in one pass (refused before JSON.parse when over a limit), and a
 * batch's array parsed a slice of items at a time.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Deeper JSON is refused: nothing a route takes nests this far, and stores and serializers recurse. */
export const MAX_JSON_DEPTH = 32;

/** What one pass over JSON text tells before it is parsed. */
export interface JsonShape {
  /** The deepest bracket nesting. */
  depth: number;
  /** How many values (objects, arrays, strings, numbers, literals; keys are not values) it holds. */
  values: number;
  /** The most fields of one object (objects nested deeper than MAX_JSON_DEPTH are not counted). */
  widestObject: number;
}

/**
 * The bracket nesting, the value count and the widest object of JSON text, strings skipped: one
 * pass over the characters, so that a body with too many values or fields is refused before
 * JSON.parse and validation, which cost the event loop far more per value. A value is counted per comma and per non-empty container (+1 for the root); for
 * invalid JSON the count is only an estimate, and JSON.parse then refuses it.
 */
export function measureJson(text: string): JsonShape {
  let depth = 0;
  let deepest = 0;
  let commas = 0;
  let containers = 0;
  const fields = new Int32Array(MAX_JSON_DEPTH + 1); // fields of the open object at each depth
  let widest = 0;
  let previous = 0; // the last character outside strings that is not whitespace
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x22) inString = true;
    else if (c === 0x2c) commas++;
    else if (c === 0x3a) {
      if (depth >= 0 && depth <= MAX_JSON_DEPTH) widest = Math.max(widest, ++fields[depth]!);
    } else if (c === 0x7b || c === 0x5b) {
      deepest = Math.max(deepest, ++depth);
      if (depth <= MAX_JSON_DEPTH) fields[depth] = 0;
      containers++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (previous === 0x7b || previous === 0x5b) containers--; // empty: holds no first value
    }
    previous = c;
  }
  return {
    depth: deepest,
    values: text.length === 0 ? 0 : commas + containers + 1,
    widestObject: widest,
  };
}

/**
 * No object of a body may have more fields, whatever the route's value limit (batch routes take
 * 100,000 values): each new field name costs JSON.parse far more than a value.
 */
export const MAX_OBJECT_FIELDS = 5000;

/** Items of a batch parsed (and validated) between two turns of the event loop. */
export const ITEMS_PER_SLICE = 100;

/** Where the items of the root object's array `field` start ([ + 1, and after each comma), and where it closes. */
interface BatchBounds {
  open: number;
  starts: number[];
  close: number;
}

/**
 * The bounds of `"field": [...]` in the root object, or undefined when the text does not have it
 * once, literally (then the whole text is parsed at once). One pass, strings skipped.
 */
function batchBounds(text: string, field: string): BatchBounds | undefined {
  const key = JSON.stringify(field);
  let depth = 0;
  let previous = 0;
  let found: BatchBounds | undefined;
  let inBatch = false;
  let expectArray = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x22) {
      const isKey =
        depth === 1 && (previous === 0x7b || previous === 0x2c) && text.startsWith(key, i);
      if (isKey && found) return undefined; // twice: JSON.parse would keep the last
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 0x22)
        end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      expectArray = isKey && end === i + key.length - 1;
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (c === 0x5b && depth === 2 && expectArray && previous === 0x3a) {
        found = { open: i, starts: [i + 1], close: -1 };
        inBatch = true;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      if (inBatch && depth === 1) {
        found!.close = i;
        inBatch = false;
      }
    } else if (c === 0x2c && inBatch && depth === 2) found!.starts.push(i + 1);
    if (c !== 0x3a) expectArray &&= c === 0x22;
    previous = c;
  }
  return found && found.close > found.open ? found : undefined;
}

/**
 * The bounds of the items of a body that is an array itself (an import's JSON array), or
 * undefined when its root is anything else. One pass, strings skipped.
 */
function rootArrayBounds(text: string): BatchBounds | undefined {
  let depth = 0;
  let found: BatchBounds | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (depth === 0) {
      if (found || c !== 0x5b) return undefined; // not an array, or something after it
      found = { open: i, starts: [i + 1], close: -1 };
      depth = 1;
    } else if (c === 0x22) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 0x22)
        end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      i = end;
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) found!.close = i;
    } else if (c === 0x2c && depth === 1) found!.starts.push(i + 1);
  }
  return found && found.close > found.open ? found : undefined;
}

/** The items between bounds, ITEMS_PER_SLICE at a time with a turn of the event loop before each slice. */
async function parseItems(text: string, { open, starts, close }: BatchBounds): Promise<unknown[]> {
  const empty = starts.length === 1 && text.slice(open + 1, close).trim() === '';
  const items: unknown[] = [];
  for (let first = 0; !empty && first < starts.length; first += ITEMS_PER_SLICE) {
    await nextTurn();
    const next = first + ITEMS_PER_SLICE;
    const end = next < starts.length ? starts[next]! - 1 : close;
    for (const item of JSON.parse(`[${text.slice(starts[first], end)}]`) as unknown[])
      items.push(item);
  }
  return items;
}

/**
 * JSON.parse of a body whose root object holds the batch array `field`: the rest of the body at
 * once, the items ITEMS_PER_SLICE at a time with a turn of the event loop between, so a large
 * batch (worse, one whose items bring new field names) never holds the loop in one parse.
 * The result is the one JSON.parse gives; invalid JSON throws JSON.parse's error for the whole text.
 */
export async function parseBatch(text: string, field: string): Promise<unknown> {
  const bounds = batchBounds(text, field);
  if (!bounds) return JSON.parse(text);
  try {
    const { open, close } = bounds;
    const body = JSON.parse(text.slice(0, open + 1) + text.slice(close)) as Record<string, unknown>;
    body[field] = await parseItems(text, bounds);
    return body;
  } catch {
    return JSON.parse(text); // throws the error for the whole text
  }
}

/**
 * parseBatch for a body that is an array itself: its items a slice at a time. Any other text is
 * parsed at once. Same result, or same error, as JSON.parse.
 */
export async function parseRootArray(text: string): Promise<unknown> {
  const bounds = rootArrayBounds(text);
  if (!bounds) return JSON.parse(text);
  try {
    return await parseItems(text, bounds);
  } catch {
    return JSON.parse(text);
  }
}

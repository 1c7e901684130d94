import type { Item, Item__Output } from '@switchyard/shared/proto/recommendation/v1';
import { isCatalog, type CatalogItem } from '../model/types';
import { checkId, FieldErrors, parseTimestamp } from './validation';

const MAX_TITLE_LENGTH = 1000;
const MAX_CATEGORIES = 50;
const MAX_CATEGORY_LENGTH = 200;
const MAX_ATTRIBUTES_LENGTH = 64 * 1024;

export function toProtoItem(item: CatalogItem): Item {
  return {
    item_id: item.itemId,
    catalog: item.catalog,
    title: item.title,
    categories: item.categories,
    attributes_json: item.attributesJson,
    available: item.available,
    updated_at: item.updatedAt,
  };
}

/**
 * Validates one incoming item (errors under `/items/<index>/<field>`, camelCase as in the HTTP
 * body) and returns it as stored; undefined when it is invalid.
 */
export function toCatalogItem(
  input: Item__Output,
  index: number,
  errors: FieldErrors,
  now: Date,
): CatalogItem | undefined {
  const before = errors.count;
  const at = (field: string) => `/items/${index}/${field}`;
  checkId(errors, at('itemId'), input.item_id);
  if (!isCatalog(input.catalog))
    errors.add(at('catalog'), 'must be one of ecommerce, ticketing, education');
  if (input.title.trim() === '') errors.add(at('title'), 'is required');
  else if (input.title.length > MAX_TITLE_LENGTH)
    errors.add(at('title'), `must be at most ${MAX_TITLE_LENGTH} characters`);
  checkCategories(input.categories, at('categories'), errors);
  const attributesJson = normaliseAttributes(input.attributes_json, at('attributesJson'), errors);
  const updatedAt = input.updated_at === '' ? now.getTime() : parseTimestamp(input.updated_at);
  if (updatedAt === undefined) errors.add(at('updatedAt'), 'must be an ISO 8601 date-time');
  if (
    errors.count > before ||
    attributesJson === undefined ||
    updatedAt === undefined ||
    !isCatalog(input.catalog)
  ) {
    return undefined;
  }
  return {
    itemId: input.item_id,
    catalog: input.catalog,
    title: input.title,
    categories: input.categories,
    attributesJson,
    available: input.available,
    updatedAt: new Date(updatedAt).toISOString(),
  };
}

function checkCategories(categories: string[], field: string, errors: FieldErrors): void {
  if (categories.length > MAX_CATEGORIES)
    errors.add(field, `must hold at most ${MAX_CATEGORIES} categories`);
  categories.forEach((category, i) => {
    if (category.trim() === '' || category.length > MAX_CATEGORY_LENGTH) {
      errors.add(
        `${field}/${i}`,
        `must be a non-empty string of at most ${MAX_CATEGORY_LENGTH} characters`,
      );
    }
  });
}

/** attributes_json must hold a JSON object; empty means "no attributes". Stored compact. */
function normaliseAttributes(raw: string, field: string, errors: FieldErrors): string | undefined {
  if (raw.trim() === '') return '{}';
  if (raw.length > MAX_ATTRIBUTES_LENGTH) {
    errors.add(field, `must be at most ${MAX_ATTRIBUTES_LENGTH} characters`);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    errors.add(field, 'must be valid JSON');
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    errors.add(field, 'must be a JSON object');
    return undefined;
  }
  return JSON.stringify(parsed);
}

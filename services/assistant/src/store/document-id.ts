/**
 * The `_id` of a document addressed by its natural key (organization first). Lookups by `_id`
 * alone use the `_id` index on MongoDB and on FerretDB, where any other filter scans the whole
 * collection. NUL separates the parts: no organization, name or id contains it.
 */
export function documentId(...parts: Array<string | number>): string {
  return parts.join('\u0000');
}

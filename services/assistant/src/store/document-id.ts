/**
 * The `_id` of a document addressed by its natural key (organization first), so a lookup is one
 * `_id` index lookup. NUL separates the parts: no organization, name or id contains it.
 */
export function documentId(...parts: Array<string | number>): string {
  return parts.join('\u0000');
}

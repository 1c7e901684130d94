import type { Logger } from '@switchyard/shared';
import type { Item__Output } from '@switchyard/shared/proto/recommendation/v1';

/** attributes travel as JSON text in gRPC; callers see an object. */
function parseAttributes(raw: string, itemId: string, logger: Logger): Record<string, unknown> {
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through: a malformed value is reported once and shown as empty rather than failing the call
  }
  logger.warn({ itemId }, 'item attributes_json is not a JSON object');
  return {};
}

export function itemView(item: Item__Output, logger: Logger) {
  return {
    itemId: item.item_id,
    catalog: item.catalog,
    title: item.title,
    categories: item.categories,
    attributes: parseAttributes(item.attributes_json, item.item_id, logger),
    available: item.available,
    updatedAt: item.updated_at,
  };
}

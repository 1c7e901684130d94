/** Domain types of the recommendation service (transport-free, camelCase). */

import {
  CATALOGS,
  INTERACTION_TYPES,
  type Catalog,
  type InteractionType,
} from '@switchyard/shared/contracts';

export { CATALOGS, INTERACTION_TYPES, type Catalog, type InteractionType };

export function isCatalog(value: string): value is Catalog {
  return (CATALOGS as readonly string[]).includes(value);
}

export function isInteractionType(value: string): value is InteractionType {
  return (INTERACTION_TYPES as readonly string[]).includes(value);
}

export interface CatalogItem {
  itemId: string;
  catalog: Catalog;
  title: string;
  categories: string[];
  /** Always the text of a JSON object. */
  attributesJson: string;
  available: boolean;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

export interface UserInteraction {
  userId: string;
  itemId: string;
  type: InteractionType;
  /** Rating 1..5 for type=rating; 0 otherwise. */
  value: number;
  /** Epoch milliseconds. */
  timestamp: number;
}

/** Cache key of an organization's entry: organization ids are slugs (no NUL), so the pair is unambiguous. */
export function scopedKey(organization: string, id: string): string {
  return `${organization}\u0000${id}`;
}

import type { InteractionType } from './types';

/** Implicit signal strength per interaction type (ratings are handled apart, see ratingWeight). */
const IMPLICIT_WEIGHTS: Record<Exclude<InteractionType, 'rating'>, number> = {
  view: 1,
  click: 1.5,
  cart: 3,
  purchase: 5,
  ticket: 5,
  enroll: 5,
  complete: 5,
};

/** Scale of (rating - 3): a 5-star rating weighs 3, a 1-star rating -3 (it pushes similar items down). */
const RATING_SCALE = 1.5;

/** Types meaning the user already has the item; such items are never recommended back to them. */
const OWNING_TYPES: ReadonlySet<InteractionType> = new Set(['purchase', 'ticket', 'enroll', 'complete', 'rating']);

export function implicitWeight(type: Exclude<InteractionType, 'rating'>): number {
  return IMPLICIT_WEIGHTS[type];
}

export function ratingWeight(value: number): number {
  return (value - 3) * RATING_SCALE;
}

/** A rating counts as owning: people rate what they bought, attended or took. */
export function marksOwnership(type: InteractionType): boolean {
  return OWNING_TYPES.has(type);
}

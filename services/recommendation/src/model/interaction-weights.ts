import type { InteractionType, UserInteraction } from './types';

/**
 * Implicit signal strength per interaction type: view < click < cart < purchase. On the scale of
 * one rating (about 1) so that lambda means the same whatever the mix of types.
 */
const IMPLICIT_WEIGHTS: Record<Exclude<InteractionType, 'rating'>, number> = {
  view: 0.25,
  click: 0.4,
  cart: 0.7,
  purchase: 1,
  ticket: 1,
  enroll: 1,
  complete: 1.1,
};

/** Repeated implicit signals saturate: fifty views of one item are not fifty purchases. */
export const MAX_IMPLICIT = 2;

/** Types meaning the user already has the item; such items are never recommended back to them. */
const OWNING_TYPES: ReadonlySet<InteractionType> = new Set([
  'purchase',
  'ticket',
  'enroll',
  'complete',
  'rating',
]);

export function implicitWeight(type: Exclude<InteractionType, 'rating'>): number {
  return IMPLICIT_WEIGHTS[type];
}

/**
 * A rating says the user has the item (positive) and how much they liked it: 1 star 0.7 ...
 * 5 stars 1.1. Kept positive on purpose: on MovieLens-100k this gave EASE nDCG@10 0.486 against
 * 0.482 for binary and 0.384 for the raw value (bench/recommendation).
 */
export function ratingWeight(value: number): number {
  return 0.6 + 0.1 * value;
}

/** A rating counts as owning: people rate what they bought, attended or took. */
export function marksOwnership(type: InteractionType): boolean {
  return OWNING_TYPES.has(type);
}

/** Exponential time decay; halfLifeDays 0 turns it off. */
export function decayFactor(ageMs: number, halfLifeDays: number): number {
  if (halfLifeDays <= 0 || ageMs <= 0) return 1;
  return Math.pow(0.5, ageMs / (halfLifeDays * 86_400_000));
}

export interface ItemSignal {
  /** The user's weight for the item (0 when it only carries ownership). */
  weight: number;
  owned: boolean;
}

/**
 * Folds one user's interactions into a weight per item: decayed implicit signals (saturating) plus
 * the latest rating's weight. Decay is measured from `reference` (the newest interaction of the
 * data it is computed on), so a user's weights keep the same ratios in training and serving.
 */
export function foldUserSignals(
  interactions: Iterable<UserInteraction>,
  reference: number,
  halfLifeDays: number,
): Map<string, ItemSignal> {
  const state = new Map<
    string,
    { implicit: number; rating: number; ratingAt: number; owned: boolean }
  >();
  for (const interaction of interactions) {
    let s = state.get(interaction.itemId);
    if (!s) {
      s = { implicit: 0, rating: 0, ratingAt: -Infinity, owned: false };
      state.set(interaction.itemId, s);
    }
    const decay = decayFactor(reference - interaction.timestamp, halfLifeDays);
    if (interaction.type === 'rating') {
      // Ratings arriving out of order must not overwrite a newer one.
      if (interaction.timestamp >= s.ratingAt) {
        s.rating = ratingWeight(interaction.value) * decay;
        s.ratingAt = interaction.timestamp;
      }
    } else {
      s.implicit += implicitWeight(interaction.type) * decay;
    }
    if (marksOwnership(interaction.type)) s.owned = true;
  }
  const signals = new Map<string, ItemSignal>();
  for (const [itemId, s] of state)
    signals.set(itemId, { weight: Math.min(MAX_IMPLICIT, s.implicit) + s.rating, owned: s.owned });
  return signals;
}

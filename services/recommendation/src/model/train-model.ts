import { trainEase } from './ease';
import { rankRelatedRows, type Algorithm, type ItemModelData } from './item-model';
import { trainItemKnn } from './item-knn';
import { itemPopularity, type TrainingSet } from './training-set';

export interface TrainingOptions {
  /** 'auto' picks EASE up to easeMaxItems items (and from easeMinInteractions on), item-kNN beyond. */
  algorithm: Algorithm | 'auto';
  easeLambda: number;
  easeMaxItems: number;
  easeMinInteractions: number;
  knnNeighbours: number;
}

/**
 * EASE's dense inverse costs items^3 time and items^2 memory, so large catalogs get item-kNN. On
 * a few hundred interactions EASE's lambda (set for real data) swamps the counts, so small data
 * gets item-kNN too.
 */
export function chooseAlgorithm(set: TrainingSet, options: TrainingOptions): Algorithm {
  if (options.algorithm !== 'auto') return options.algorithm;
  return set.itemIds.length <= options.easeMaxItems &&
    set.interactions >= options.easeMinInteractions
    ? 'ease'
    : 'item_knn';
}

/** Trains synchronously (call it in a worker thread; see trainer.ts). */
export function trainModel(
  set: TrainingSet,
  options: TrainingOptions,
  version: number,
): ItemModelData {
  const started = Date.now();
  const algorithm = chooseAlgorithm(set, options);
  const weights =
    algorithm === 'ease'
      ? { dense: trainEase(set, options.easeLambda) }
      : { sparse: trainItemKnn(set, options.knnNeighbours) };
  const data = {
    algorithm,
    version,
    trainedAt: new Date().toISOString(),
    trainingMs: 0,
    users: set.users,
    interactions: set.interactions,
    itemIds: set.itemIds,
    popularity: itemPopularity(set),
    ...weights,
  };
  const related = rankRelatedRows(data);
  return { ...data, related, trainingMs: Date.now() - started };
}

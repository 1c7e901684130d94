import { trainEase } from './ease';
import { rankPositive, rankRelatedRows, type Algorithm, type ItemModelData } from './item-model';
import { trainItemKnn } from './item-knn';
import { trainSparseEase, type SparseEaseOptions } from './sparse-ease';
import { itemPopularity, type TrainingSet } from './training-set';

export interface TrainingOptions {
  /**
   * 'auto': EASE up to easeMaxItems items, sparse EASE beyond, item-kNN below
   * easeMinInteractions interactions (see chooseAlgorithm).
   */
  algorithm: Algorithm | 'auto';
  easeLambda: number;
  easeMaxItems: number;
  easeMinInteractions: number;
  knnNeighbours: number;
  sparseEase: SparseEaseOptions;
}

/**
 * EASE's dense inverse costs items^3 time and items^2 memory, so catalogs above easeMaxItems get
 * its neighbourhood form (sparse_ease), linear in items x neighbours. On a few hundred
 * interactions both lambdas (set for real data) swamp the counts, so such data gets item-kNN.
 */
export function chooseAlgorithm(set: TrainingSet, options: TrainingOptions): Algorithm {
  if (options.algorithm !== 'auto') return options.algorithm;
  if (set.interactions < options.easeMinInteractions) return 'item_knn';
  return set.itemIds.length <= options.easeMaxItems ? 'ease' : 'sparse_ease';
}

/** Trains synchronously (call it in a worker thread; see trainer.ts). */
export function trainModel(
  set: TrainingSet,
  options: TrainingOptions,
  version: number,
): ItemModelData {
  const started = Date.now();
  const algorithm = chooseAlgorithm(set, options);
  const data: ItemModelData = {
    algorithm,
    version,
    trainedAt: new Date().toISOString(),
    trainingMs: 0,
    users: set.users,
    interactions: set.interactions,
    itemIds: set.itemIds,
    popularity: itemPopularity(set),
  };
  data.popularOrder = rankPositive(data.popularity, data.itemIds).order;
  if (algorithm === 'ease') {
    data.dense = trainEase(set, options.easeLambda);
    data.related = rankRelatedRows(data);
  } else if (algorithm === 'sparse_ease') {
    data.sparse = trainSparseEase(set, options.sparseEase);
  } else {
    data.sparse = trainItemKnn(set, options.knnNeighbours);
  }
  return { ...data, trainingMs: Date.now() - started };
}

/**
 * The learned reranker (`balanced`): LTR features of each candidate, scored by a small model trained
 * on the dev queries (model.ts), as a calibrated probability of relevance in [0, 1]. Pure and
 * deterministic: the same query and candidates always get the same scores.
 */
import { computeFeatures, FEATURE_NAMES, FEATURE_VERSION } from './features.js';
import { predict, type LtrModel } from './ltrModel.js';
import { DEFAULT_LTR_MODEL } from './model.js';
import type { Reranker } from './types.js';

export function createLearnedReranker(model: LtrModel = DEFAULT_LTR_MODEL): Reranker {
  if (model.featureVersion !== FEATURE_VERSION || model.features.length !== FEATURE_NAMES.length || model.features.some((f, i) => f !== FEATURE_NAMES[i])) {
    throw new Error(`reranker model was trained on features ${model.featureVersion} (${model.features.length}); this build computes ${FEATURE_VERSION} (${FEATURE_NAMES.length}): retrain with bench/train-reranker.ts`);
  }
  return {
    name: 'learned',
    readsAreaSignal: true,
    async rerank(query, candidates) {
      return computeFeatures(query, candidates).map((x) => predict(model, x));
    },
  };
}

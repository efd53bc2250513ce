export type { Candidate, Reranker, RerankOptions } from './types.js';
export { computeFeatures, FEATURE_NAMES, FEATURE_VERSION, type FeatureName } from './features.js';
export { predict, type LtrModel, type TreeNode } from './ltrModel.js';
export { DEFAULT_LTR_MODEL } from './model.js';
export { createLearnedReranker } from './learned.js';
export { crossValidate, DEFAULT_TRAIN_OPTIONS, listNdcg, trainReranker, type CrossValidation, type TrainingQuery, type TrainOptions } from './train.js';
export { createHostedReranker, HostedRerankerError, parseRerankAnswer, type HostedRerankerOptions, type RerankProtocol } from './hosted.js';
export { createLlmScorer, LlmUnavailableError, relevancePrompt, SYSTEM_PROMPT, type LlmScorerOptions } from './llm.js';

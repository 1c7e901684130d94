export { countTokens, truncateToTokens, loadTokenizer, MAX_RUN_CHARS } from './count';
export { estimateTokens, EXACT_ESTIMATE_CHARS } from './estimate';
export { countTokensOffThread } from './count-off-thread';

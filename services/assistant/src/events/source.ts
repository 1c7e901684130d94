/** The source of the events the assistant publishes. */
export const SOURCE = 'assistant';

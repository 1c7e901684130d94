/** The source of the events content publishes. */
export const SOURCE = 'content';

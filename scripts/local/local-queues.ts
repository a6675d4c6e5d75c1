/**
 * The local stack's two dead-letter queues, on the stand-in (scripts/local/aws-stand-in.ts): the
 * consumer's (DECISION_DEAD_LETTER_QUEUE_URL, scripts/local/service-env.ts) and the stream
 * poller's on-failure destination. npm run redrive reads them by default.
 */
export const LOCAL_DEAD_LETTER_QUEUES = {
  decisions: (standIn: string) => `${standIn}/000000000000/decision-dead-letters`,
  publisher: (standIn: string) => `${standIn}/000000000000/publisher-dead-letters`,
} as const;

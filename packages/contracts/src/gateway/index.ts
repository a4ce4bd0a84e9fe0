// The contract of the gateway service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './operations';
export * from './dashboard';
export * from './account-mail';
export * from './account-security';
export * from './key-scopes';
export * from './dashboard-batch';
export * from './request-log';
export * from './members';
export * from './platform.schemas';
export {
  deadLetterSchema,
  deadLetterQueueSchema,
  deadLetterQuerySchema,
  replayDeadLettersBodySchema,
  replayedQueueSchema,
  serviceDeadLetterQueueSchema,
  serviceReplayedQueueSchema,
  INTERNAL_DEAD_LETTERS_PATH,
  INTERNAL_DEAD_LETTERS_REPLAY_PATH,
} from './dead-letter.schemas';
export * from './system-health.schemas';

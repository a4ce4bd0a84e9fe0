// The contract of the enforcement service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './events';
export * from './operations';
export {
  violationStatusSchema,
  gracePeriodStatusSchema,
  severitySchema,
  resolutionSchema,
  appealReasonSchema,
  appealStatusSchema,
  avatarEvaluationStatusSchema,
  avatarMatchOutcomeSchema,
  avatarIdSchema,
  violationNotificationsSchema,
} from './vocabulary.schemas';
export * from './avatar.schemas';
export * from './violation.schemas';
export * from './grace-period.schemas';
export * from './appeal.schemas';
export * from './sandbox-clock.schemas';
export * from './obligations.schemas';

import { dataOf, idParamSchema, listOf } from '../common/schemas';
import { defineOperation } from '../common/operation';
import {
  reportAvatarBodySchema,
  updateAvatarBodySchema,
  avatarIdParamSchema,
  listAvatarsQuerySchema,
  avatarSchema,
  deletedAvatarSchema,
} from './avatar.schemas';
import {
  listViolationsQuerySchema,
  resolveBodySchema,
  appealBodySchema,
  violationSchema,
  boxViolationSchema,
  listBoxViolationsQuerySchema,
  contestBodySchema,
  contestedViolationSchema,
  resolvedViolationSchema,
  appealedViolationSchema,
} from './violation.schemas';
import {
  listGracePeriodsQuerySchema,
  gracePeriodSchema,
  resolvedGracePeriodSchema,
} from './grace-period.schemas';
import {
  decideAppealBodySchema,
  appealSchema,
  reviewAppealsQuerySchema,
  reviewAppealSchema,
  decidedAppealSchema,
} from './appeal.schemas';
import { advanceTimeBodySchema, advancedTimeSchema, sandboxClockSchema } from './sandbox-clock.schemas';
import { obligationsSchema } from './obligations.schemas';

// Enforcement's public operations (docs/spec/service-interface.md: Violation, Grace period, Endpoints
// /violations and /grace-periods; docs/spec/contracts.md §8 avatars and appeals, §9 test helpers, §12
// obligations). The same schemas validate requests in services/enforcement and build the OpenAPI document.

const avatars = { service: 'enforcement' as const, tags: ['Avatars'] };
const violations = { service: 'enforcement' as const, tags: ['Violations'] };
const gracePeriods = { service: 'enforcement' as const, tags: ['Grace periods'] };
const avatarParams = { params: avatarIdParamSchema };
const idParams = { params: idParamSchema };
const invalidState = { 409: { description: 'INVALID_STATE: not allowed from the current state' } };

export const enforcementOperations = {
  reportAvatar: defineOperation({
    ...avatars,
    id: 'reportAvatar',
    method: 'post',
    path: '/v1/svc/avatars',
    summary: 'Report an avatar you host (re-posting the same id updates it); it is run through detection',
    request: { body: reportAvatarBodySchema },
    responses: {
      201: { description: 'Reported', schema: dataOf(avatarSchema) },
      200: { description: 'Updated (the id was already reported)', schema: dataOf(avatarSchema) },
    },
  }),
  listAvatars: defineOperation({
    ...avatars,
    id: 'listAvatars',
    method: 'get',
    path: '/v1/svc/avatars',
    summary: 'The avatars you reported, newest first',
    request: { query: listAvatarsQuerySchema },
    responses: { 200: { description: 'Avatars (without creatorEmail)', schema: listOf(avatarSchema) } },
  }),
  getAvatar: defineOperation({
    ...avatars,
    id: 'getAvatar',
    method: 'get',
    path: '/v1/svc/avatars/:id',
    summary: 'One of your avatars',
    request: avatarParams,
    responses: { 200: { description: 'The avatar', schema: dataOf(avatarSchema) } },
  }),
  updateAvatar: defineOperation({
    ...avatars,
    id: 'updateAvatar',
    method: 'patch',
    path: '/v1/svc/avatars/:id',
    summary:
      'Change an avatar; it is evaluated again (an avatar that no longer breaks the policy resolves its violation as modified)',
    request: { ...avatarParams, body: updateAvatarBodySchema },
    responses: { 200: { description: 'The avatar', schema: dataOf(avatarSchema) } },
  }),
  deleteAvatar: defineOperation({
    ...avatars,
    id: 'deleteAvatar',
    method: 'delete',
    path: '/v1/svc/avatars/:id',
    summary: 'Stop reporting an avatar (you took it down): its open violations are resolved as removed',
    request: avatarParams,
    responses: { 200: { description: 'Deleted', schema: dataOf(deletedAvatarSchema) } },
  }),
  listViolations: defineOperation({
    ...violations,
    id: 'listViolations',
    method: 'get',
    path: '/v1/svc/violations',
    summary: 'Violations of avatars you host, newest first',
    request: { query: listViolationsQuerySchema },
    responses: { 200: { description: 'Violations (list form)', schema: listOf(violationSchema) } },
  }),
  getViolation: defineOperation({
    ...violations,
    id: 'getViolation',
    method: 'get',
    path: '/v1/svc/violations/:id',
    summary: 'One violation (detail form)',
    request: idParams,
    responses: { 200: { description: 'The violation', schema: dataOf(violationSchema) } },
  }),
  resolveViolation: defineOperation({
    ...violations,
    id: 'resolveViolation',
    method: 'post',
    path: '/v1/svc/violations/:id/resolve',
    summary: 'Resolve a pending (or appealed) violation: its grace period becomes resolved',
    request: { ...idParams, body: resolveBodySchema },
    responses: { 200: { description: 'Resolved', schema: dataOf(resolvedViolationSchema) }, ...invalidState },
  }),
  appealViolation: defineOperation({
    ...violations,
    id: 'appealViolation',
    method: 'post',
    path: '/v1/svc/violations/:id/appeal',
    summary: 'Appeal a pending violation: its grace period is paused until the appeal is decided',
    request: { ...idParams, body: appealBodySchema },
    responses: { 200: { description: 'Appealed', schema: dataOf(appealedViolationSchema) }, ...invalidState },
  }),
  getAppeal: defineOperation({
    ...violations,
    id: 'getAppeal',
    method: 'get',
    path: '/v1/svc/appeals/:id',
    summary: 'One of your appeals',
    request: idParams,
    responses: { 200: { description: 'The appeal', schema: dataOf(appealSchema) } },
  }),
  listGracePeriods: defineOperation({
    ...gracePeriods,
    id: 'listGracePeriods',
    method: 'get',
    path: '/v1/svc/grace-periods',
    summary: 'Grace periods of avatars you host, newest first',
    request: { query: listGracePeriodsQuerySchema },
    responses: { 200: { description: 'Grace periods (list form)', schema: listOf(gracePeriodSchema) } },
  }),
  getGracePeriod: defineOperation({
    ...gracePeriods,
    id: 'getGracePeriod',
    method: 'get',
    path: '/v1/svc/grace-periods/:id',
    summary: 'One grace period (detail form, with the affected avatars and notifications)',
    request: idParams,
    responses: { 200: { description: 'The grace period', schema: dataOf(gracePeriodSchema) } },
  }),
  resolveGracePeriod: defineOperation({
    ...gracePeriods,
    id: 'resolveGracePeriod',
    method: 'post',
    path: '/v1/svc/grace-periods/:id/resolve',
    summary: 'Resolve an active (or paused) grace period: its violation becomes resolved',
    request: { ...idParams, body: resolveBodySchema },
    responses: {
      200: { description: 'Resolved', schema: dataOf(resolvedGracePeriodSchema) },
      ...invalidState,
    },
  }),
  listBoxViolations: defineOperation({
    ...violations,
    id: 'listBoxViolations',
    method: 'get',
    path: '/v1/svc/boxes/:id/violations',
    summary:
      "Box owner: the violations of your box, newest first, with how each was resolved (without the hosting platform's personal data)",
    request: { ...idParams, query: listBoxViolationsQuerySchema },
    responses: {
      200: { description: 'Violations of the box', schema: listOf(boxViolationSchema) },
      404: { description: 'NOT_FOUND: no such box, or it is not yours' },
    },
  }),
  contestResolution: defineOperation({
    ...violations,
    id: 'contestResolution',
    method: 'post',
    path: '/v1/svc/violations/:id/contest',
    summary:
      'Box owner: contest how a violation of your box was resolved, within its grace period; the operator reviews it as an appeal (upheld: the violation is pending again with the time it had left)',
    request: { ...idParams, body: contestBodySchema },
    responses: {
      200: { description: 'Contested', schema: dataOf(contestedViolationSchema) },
      404: { description: 'NOT_FOUND: no such violation on a box of yours' },
      ...invalidState,
    },
  }),
  listAppealsForReview: defineOperation({
    service: 'enforcement',
    tags: ['Operator'],
    auth: 'operator',
    id: 'adminListAppeals',
    method: 'get',
    path: '/admin/appeals',
    summary:
      "Every platform's appeals and box owners' contests of one status (default pending: awaiting a decision), oldest first",
    request: { query: reviewAppealsQuerySchema },
    responses: {
      200: { description: 'Appeals, each with its violation', schema: listOf(reviewAppealSchema) },
    },
  }),
  decideAppeal: defineOperation({
    service: 'enforcement',
    tags: ['Operator'],
    auth: 'operator',
    id: 'adminDecideAppeal',
    method: 'post',
    path: '/admin/appeals/:id/decide',
    summary:
      "The reviewer's decision on a pending appeal, or on a box owner's contest of a resolution (upheld: the contest wins)",
    request: { ...idParams, body: decideAppealBodySchema },
    responses: { 200: { description: 'Decided', schema: dataOf(decidedAppealSchema) }, ...invalidState },
  }),
  testHelperDecideAppeal: defineOperation({
    service: 'enforcement',
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperDecideAppeal',
    method: 'post',
    path: '/v1/svc/test-helpers/appeals/:id/decide',
    summary: 'Decide one of your own pending appeals at once (sandbox keys only)',
    request: { ...idParams, body: decideAppealBodySchema },
    responses: { 200: { description: 'Decided', schema: dataOf(decidedAppealSchema) }, ...invalidState },
  }),
  testHelperAdvanceTime: defineOperation({
    service: 'enforcement',
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperAdvanceTime',
    method: 'post',
    path: '/v1/svc/test-helpers/advance-time',
    summary:
      'Move your sandbox clock forward: every reminder, ending warning, expiry (and license expiry) that falls due fires, in order',
    request: { body: advanceTimeBodySchema },
    responses: {
      200: { description: 'Your clock now', schema: dataOf(advancedTimeSchema) },
      403: { description: 'FORBIDDEN: live keys' },
    },
  }),
  testHelperReadClock: defineOperation({
    service: 'enforcement',
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperReadClock',
    method: 'get',
    path: '/v1/svc/test-helpers/clock',
    summary: 'Read your sandbox clock (what grace periods, reminders and license expiries run on)',
    responses: {
      200: { description: 'Your clock now', schema: dataOf(sandboxClockSchema) },
      403: { description: 'FORBIDDEN: live keys' },
    },
  }),
  obligations: defineOperation({
    service: 'enforcement',
    tags: ['Second family'],
    id: 'enforcementObligations',
    method: 'get',
    path: '/enforcement/obligations',
    summary: 'Pending takedowns and open grace periods, snake_case',
    responses: { 200: { description: 'Your obligations', schema: obligationsSchema } },
  }),
};

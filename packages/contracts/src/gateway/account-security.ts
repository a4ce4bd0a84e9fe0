import { z } from 'zod';
import { dataOf, storable } from '../common/schemas';
import { defineOperation } from '../common/operation';

// An account's own security from the dashboard (docs/spec/contracts.md §17, #30): password change,
// sign out everywhere, the second factor (TOTP, RFC 6238, with one-time recovery codes), and the
// operator's TOTP enrolment.

/** A TOTP code (6 digits) or a recovery code (`xxxxx-xxxxx`), at sign-in. */
export const secondFactorCodeSchema = storable(z.string().trim()).min(1, 'required').max(40).meta({
  description:
    'The 6-digit code of the authenticator app, or one of the recovery codes (each works once); required once two-step sign-in is on',
});

export const changePasswordBodySchema = z.object({
  currentPassword: storable(z.string()).min(1, 'required').max(256),
  newPassword: storable(z.string())
    .min(1, 'required')
    .max(256)
    .meta({ description: 'At least 12 characters, not a common or breached password' }),
});

export const endedSessionsSchema = z.object({
  endedSessions: z.number().int().meta({ description: 'How many sessions ended' }),
});

export const accountSecuritySchema = z
  .object({
    totpEnabled: z.boolean().meta({ description: 'A code is required at sign-in' }),
    totpPending: z.boolean().meta({ description: 'An enrolment waits for its first code' }),
    recoveryCodesLeft: z.number().int(),
  })
  .meta({ id: 'AccountSecurity' });

export const totpEnrolmentSchema = z
  .object({
    secret: z.string().meta({ description: 'Base32; shown once', example: 'JBSWY3DPEHPK3PXPJBSWY3DP' }),
    otpauthUri: z.string().meta({ description: 'otpauth://totp/… for an authenticator app (QR code)' }),
  })
  .meta({ id: 'TotpEnrolment' });

export const confirmTotpBodySchema = z.object({
  code: storable(z.string().trim())
    .regex(/^\d{6}$/, 'expected the 6-digit code of the authenticator app')
    .meta({ example: '492039' }),
});

export const recoveryCodesSchema = z.object({
  recoveryCodes: z
    .array(z.string())
    .meta({ description: 'Ten one-time codes, shown once; keep them offline' }),
});

export const disableTotpBodySchema = z.object({
  password: storable(z.string()).min(1, 'required').max(256),
});

export const operatorTotpEnrolmentBodySchema = z.object({
  token: storable(z.string())
    .min(1, 'required')
    .max(500)
    .meta({ description: 'The operator token (ADMIN_TOKEN)' }),
});

const tags = ['Dashboard'];
const common = { service: 'gateway' as const, tags, auth: 'session' as const };

export const accountSecurityOperations = {
  getAccountSecurity: defineOperation({
    ...common,
    id: 'dashboardGetAccountSecurity',
    method: 'get',
    path: '/dashboard/api/account/security',
    summary: "The signed-in account's two-step sign-in state and recovery codes left",
    responses: { 200: { description: 'Security', schema: dataOf(accountSecuritySchema) } },
  }),
  changePassword: defineOperation({
    ...common,
    id: 'dashboardChangePassword',
    errors: ['FORBIDDEN', 'RATE_LIMITED'],
    method: 'post',
    path: '/dashboard/api/account/password',
    summary: "Change the password (current one required): the account's other sessions end, this one stays",
    request: { body: changePasswordBodySchema },
    responses: { 200: { description: 'Changed', schema: dataOf(endedSessionsSchema) } },
  }),
  endAllSessions: defineOperation({
    ...common,
    id: 'dashboardEndAllSessions',
    method: 'delete',
    path: '/dashboard/api/account/sessions',
    summary: 'Sign out everywhere: every session of the account ends, this one too',
    responses: { 204: { description: 'Signed out everywhere' } },
  }),
  startTotpEnrolment: defineOperation({
    ...common,
    id: 'dashboardStartTotpEnrolment',
    errors: ['FORBIDDEN', 'INVALID_STATE'],
    method: 'post',
    path: '/dashboard/api/account/totp',
    summary: 'Start two-step sign-in: a new TOTP secret (shown once) waits for its first code',
    responses: { 201: { description: 'Enrolment started', schema: dataOf(totpEnrolmentSchema) } },
  }),
  confirmTotpEnrolment: defineOperation({
    ...common,
    id: 'dashboardConfirmTotpEnrolment',
    errors: ['FORBIDDEN', 'INVALID_STATE'],
    method: 'post',
    path: '/dashboard/api/account/totp/confirm',
    summary: 'Confirm two-step sign-in with a first code: ten recovery codes, shown once',
    request: { body: confirmTotpBodySchema },
    responses: { 200: { description: 'Two-step sign-in is on', schema: dataOf(recoveryCodesSchema) } },
  }),
  disableTotp: defineOperation({
    ...common,
    id: 'dashboardDisableTotp',
    errors: ['FORBIDDEN', 'RATE_LIMITED'],
    method: 'post',
    path: '/dashboard/api/account/totp/disable',
    summary: 'Turn two-step sign-in off (current password required); the recovery codes are dropped',
    request: { body: disableTotpBodySchema },
    responses: { 204: { description: 'Two-step sign-in is off' } },
  }),
  operatorTotpEnrolment: defineOperation({
    ...common,
    auth: 'public',
    id: 'dashboardOperatorTotpEnrolment',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'INVALID_STATE'],
    method: 'post',
    path: '/dashboard/api/operator-session/totp',
    summary:
      "The operator's TOTP enrolment with the operator token, while none is confirmed: a secret (shown once) that the first operator sign-in's code confirms",
    request: { body: operatorTotpEnrolmentBodySchema },
    responses: { 201: { description: 'Enrolment started', schema: dataOf(totpEnrolmentSchema) } },
  }),
};

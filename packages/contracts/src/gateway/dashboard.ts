import { z } from 'zod';
import { dataOf, idParamSchema, storable } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { secondFactorCodeSchema } from './account-security';
import {
  apiKeySummarySchema,
  environmentSchema,
  issuedKeySchema,
  keyNameSchema,
  planSchema,
  rotatedKeySchema,
} from './platform.schemas';
import { keyScopeSchema } from './key-scopes';

// The dashboard's own endpoints on the gateway (docs/spec/contracts.md §14, ADR 0024): accounts,
// sessions and a platform's keys. Everything else the dashboard does goes through the public API
// (and, for operators, the operator API) with the session cookie standing in for the key.

/** The cookie that carries a dashboard session. */
export const SESSION_COOKIE = 'svc_session';
/** The header every state-changing call of a session must carry (the session's CSRF token). */
export const CSRF_HEADER = 'X-CSRF-Token';

export const accountRoleSchema = z.enum(['creator', 'platform', 'operator']);

/** An account's e-mail address, as stored: trimmed and lower-cased. */
export const emailSchema = storable(z.string().trim().toLowerCase().max(254))
  .pipe(z.email({ message: 'expected an e-mail address such as ada@example.com' }))
  .meta({ example: 'ada@example.com' });

export const dashboardIssueKeyBodySchema = z.object({
  name: keyNameSchema.optional(),
  scope: keyScopeSchema.optional().meta({ description: 'Default `full`' }),
});

/** A key the dashboard revoked: it answers KEY_REVOKED from now on, and nothing replaced it. */
export const dashboardRevokedKeySchema = z
  .object({ revokedKeyId: z.string(), revokedAt: z.iso.datetime() })
  .meta({ id: 'DashboardRevokedKey' });

export const signUpBodySchema = z.object({
  email: emailSchema,
  password: storable(z.string()).min(12, 'at least 12 characters').max(200, 'at most 200 characters').meta({
    example: 'correct horse battery staple',
    description:
      'At least 12 characters (code points), not a common, breached or easily guessed password (zxcvbn score 3+); hashed with argon2id',
  }),
  name: storable(z.string().trim().min(1, 'required').max(200)).meta({
    description: "The creator's or platform's name",
  }),
  role: z.enum(['creator', 'platform']).meta({
    description: '`creator` owns claims and boxes; `platform` integrates the API (keys, webhooks)',
  }),
});

/** The answer to every accepted sign-up (#30), whether or not the address had an account. */
export const signUpAcceptedSchema = z
  .object({
    status: z.literal('verification_sent'),
    email: z.string().meta({ description: 'Where the mail went' }),
  })
  .meta({
    id: 'SignUpAccepted',
    description:
      'The same answer whether or not the address has an account: a new address gets a verification link, one with an account a mail saying so',
  });

export const signInBodySchema = z.object({
  email: emailSchema,
  password: storable(z.string()).min(1, 'required').max(200),
  code: secondFactorCodeSchema.optional(),
});

export const operatorSignInBodySchema = z.object({
  token: storable(z.string())
    .min(1, 'required')
    .max(500)
    .meta({ description: 'The operator token (ADMIN_TOKEN)' }),
  code: secondFactorCodeSchema.optional(),
});

export const sessionSchema = z
  .object({
    account: z.object({
      id: z.string().meta({ example: 'acct_4eC39HqLyjWDarjtT1zdp7dc' }),
      email: z.string(),
      name: z.string(),
      role: accountRoleSchema,
      platformId: z
        .string()
        .nullable()
        .meta({ description: 'The tenant the account acts as; null for operators' }),
      memberRole: z.enum(['owner', 'developer', 'read_only']).nullable().meta({
        description: "The account's role among its tenant's members (docs/adr/0034); null for operators",
      }),
    }),
    csrfToken: z
      .string()
      .meta({ description: `Send it back in ${CSRF_HEADER} on every POST, PATCH and DELETE` }),
    expiresAt: z.iso.datetime(),
    environment: environmentSchema,
  })
  .meta({ id: 'DashboardSession' });

const windowUsageSchema = z.object({
  used: z.number().int().meta({ description: 'Requests counted in the current window' }),
  limit: z.number().int(),
  resetAt: z.iso.datetime().meta({ description: 'When the window ends and the count starts again' }),
});

const budgetUsageSchema = z.object({
  minute: windowUsageSchema,
  day: windowUsageSchema.meta({ description: 'The UTC day' }),
});

export const planUsageSchema = z
  .object({
    plan: planSchema,
    limits: z.object({ perMinute: z.number().int(), perDay: z.number().int() }),
    session: budgetUsageSchema.meta({
      description:
        "This dashboard session's own budget (DASHBOARD_CALLS_PER_MINUTE and _PER_DAY): dashboard calls never spend the plan's limits",
    }),
    keys: z
      .array(budgetUsageSchema.extend({ keyId: z.string() }))
      .meta({ description: 'Each key still accepted (a rotated key shares its successor’s budget)' }),
  })
  .meta({ id: 'PlanUsage' });

// The progress of a box's initial scan (issue 20: the dashboard shows it). Enforcement serves it on an
// internal route, not a public operation: the dashboard's endpoint asks it with the box owner's
// internal token (as the operator API's dead letters are asked of each service).
export const INTERNAL_BOX_SCAN_PATH = '/internal/boxes/:id/scan';

export const boxScanProgressSchema = z
  .object({
    boxId: z.string(),
    status: z.enum(['waiting', 'in_progress', 'retrying', 'completed']).meta({
      description:
        'waiting: the box is not indexed for matching yet, the scan has not started. in_progress: avatars are ' +
        'being scanned. retrying: detection failed; the scan resumes at nextAttemptAt. completed: every avatar ' +
        'reported before the box was indexed has been scanned.',
    }),
    avatarsScanned: z.number().int().meta({ description: 'Avatars of every platform scanned so far' }),
    violationsFound: z.number().int().meta({ description: 'Violations the scan opened so far' }),
    attempts: z.number().int().meta({ description: 'Failed attempts in a row (retrying)' }),
    startedAt: z.iso.datetime().nullable(),
    completedAt: z.iso.datetime().nullable(),
    nextAttemptAt: z.iso.datetime().nullable().meta({ description: 'When a retrying scan resumes' }),
  })
  .meta({ id: 'BoxScanProgress' });

const tags = ['Dashboard'];
const common = { service: 'gateway' as const, tags, auth: 'session' as const };

export const dashboardOperations = {
  signUp: defineOperation({
    ...common,
    auth: 'public',
    id: 'dashboardSignUp',
    errors: ['FORBIDDEN', 'RATE_LIMITED'],
    method: 'post',
    path: '/dashboard/api/accounts',
    summary:
      'Sign up: a verification link is mailed; following it creates the account with its own tenant and signs in (rate-limited per client)',
    description:
      'The answer is the same whether or not the address has an account (one with an account gets a mail saying so). The password must have 12+ characters and not be common, breached or guessable (400 VALIDATION_ERROR naming `password`, with a hint).',
    request: { body: signUpBodySchema },
    responses: {
      202: { description: 'Verification mail sent', schema: dataOf(signUpAcceptedSchema) },
    },
  }),
  signIn: defineOperation({
    ...common,
    auth: 'public',
    id: 'dashboardSignIn',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
    method: 'post',
    path: '/dashboard/api/session',
    summary: 'Sign in with e-mail and password (sets the session cookie; rate-limited)',
    request: { body: signInBodySchema },
    responses: { 200: { description: 'Signed in', schema: dataOf(sessionSchema) } },
  }),
  operatorSignIn: defineOperation({
    ...common,
    auth: 'public',
    id: 'dashboardOperatorSignIn',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'INVALID_STATE'],
    method: 'post',
    path: '/dashboard/api/operator-session',
    summary: 'Sign in as the operator with the operator token (sets the session cookie; rate-limited)',
    request: { body: operatorSignInBodySchema },
    responses: { 200: { description: 'Signed in', schema: dataOf(sessionSchema) } },
  }),
  getSession: defineOperation({
    ...common,
    id: 'dashboardGetSession',
    method: 'get',
    path: '/dashboard/api/session',
    summary: 'The signed-in account and its CSRF token',
    responses: { 200: { description: 'The session', schema: dataOf(sessionSchema) } },
  }),
  signOut: defineOperation({
    ...common,
    id: 'dashboardSignOut',
    method: 'delete',
    path: '/dashboard/api/session',
    summary: 'Sign out: the session ends at once',
    responses: { 204: { description: 'Signed out' } },
  }),
  getPlanUsage: defineOperation({
    ...common,
    id: 'dashboardGetPlanUsage',
    method: 'get',
    path: '/dashboard/api/usage',
    summary:
      "The signed-in tenant's plan and limits, and how much of each budget (this account's, each key's) the current minute and day have used",
    responses: { 200: { description: 'Plan and usage', schema: dataOf(planUsageSchema) } },
  }),
  getBoxScan: defineOperation({
    ...common,
    id: 'dashboardGetBoxScan',
    method: 'get',
    path: '/dashboard/api/boxes/:id/scan',
    summary:
      "Box owner: the progress of the box's initial scan (avatars scanned, violations found, retrying after a failure, completed)",
    request: { params: idParamSchema },
    responses: {
      200: { description: 'The scan', schema: dataOf(boxScanProgressSchema) },
      404: { description: 'NOT_FOUND: no such box, or it is not yours' },
    },
  }),
  listKeys: defineOperation({
    ...common,
    id: 'dashboardListKeys',
    method: 'get',
    path: '/dashboard/api/keys',
    summary: "The signed-in platform's API keys (never the secrets)",
    responses: {
      200: { description: 'Keys, newest first', schema: z.object({ data: z.array(apiKeySummarySchema) }) },
    },
  }),
  issueKey: defineOperation({
    ...common,
    id: 'dashboardIssueKey',
    method: 'post',
    path: '/dashboard/api/keys',
    summary: 'Issue an API key of this deployment (the secret is shown once), with a name if given',
    request: { body: dashboardIssueKeyBodySchema.optional() },
    responses: { 201: { description: 'Issued', schema: dataOf(issuedKeySchema) } },
    // The platform's quota of active keys (MAX_ACTIVE_API_KEYS): {quota: 'activeApiKeys', limit, used}.
    errors: ['FORBIDDEN'],
  }),
  rotateKey: defineOperation({
    ...common,
    id: 'dashboardRotateKey',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/dashboard/api/keys/:id/rotate',
    summary: 'Rotate a key: the old one keeps working for 24 hours',
    request: { params: idParamSchema },
    responses: { 200: { description: 'Rotated', schema: dataOf(rotatedKeySchema) } },
  }),
  revokeKey: defineOperation({
    ...common,
    id: 'dashboardRevokeKey',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/dashboard/api/keys/:id/revoke',
    summary:
      'Revoke a key at once, an active one or one rotated and still in its overlap; no successor is issued (rotate for that)',
    request: { params: idParamSchema },
    responses: { 200: { description: 'Revoked', schema: dataOf(dashboardRevokedKeySchema) } },
  }),
};

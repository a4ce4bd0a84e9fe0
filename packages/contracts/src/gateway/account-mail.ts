import { z } from 'zod';
import { dataOf, storable } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { emailSchema, sessionSchema } from './dashboard';

// Account mail (docs/spec/contracts.md §17, #30): sign-up answers the same whether the address has
// an account or not and mails a verification link; following it creates the account and signs in.
// A password is reset by a single-use link mailed to the address.

/** A link's secret, from the fragment of a mailed link (`#token=…`). */
const mailTokenSchema = storable(z.string().trim())
  .min(1, 'required')
  .max(200)
  .meta({ description: 'The token of the mailed link (after `#token=`)' });

export const verifyEmailBodySchema = z.object({
  token: mailTokenSchema,
  password: storable(z.string())
    .min(1, 'required')
    .max(256)
    .meta({ description: 'The password chosen at sign-up: only whoever chose it completes the sign-up' }),
});

export const passwordResetRequestBodySchema = z.object({ email: emailSchema });

export const passwordResetRequestedSchema = z
  .object({ status: z.literal('reset_sent'), email: z.string() })
  .meta({
    id: 'PasswordResetRequested',
    description: 'The same answer whether or not the address has an account',
  });

export const resetPasswordBodySchema = z.object({
  token: mailTokenSchema,
  password: storable(z.string())
    .min(1, 'required')
    .max(256)
    .meta({ description: 'The new password: at least 12 characters, not a common or breached password' }),
});

export const passwordResetSchema = z
  .object({
    status: z.literal('password_reset'),
    sessionsEnded: z.number().int().meta({ description: "The account's sessions that ended" }),
  })
  .meta({ id: 'PasswordReset' });

const common = { service: 'gateway' as const, tags: ['Dashboard'], auth: 'public' as const };

export const accountMailOperations = {
  verifyEmail: defineOperation({
    ...common,
    id: 'dashboardVerifyEmail',
    errors: ['FORBIDDEN'],
    method: 'post',
    path: '/dashboard/api/email-verifications',
    summary:
      'Follow the verification link mailed at sign-up, with the password chosen then: the account and its tenant are created and signed in (sets the session cookie)',
    request: { body: verifyEmailBodySchema },
    description:
      'A link that expired or was used answers 400 VALIDATION_ERROR naming the field `token`; another password than the one chosen at sign-up names `password` (the link stays usable).',
    responses: { 200: { description: 'Verified and signed in', schema: dataOf(sessionSchema) } },
  }),
  requestPasswordReset: defineOperation({
    ...common,
    id: 'dashboardRequestPasswordReset',
    errors: ['FORBIDDEN', 'RATE_LIMITED'],
    method: 'post',
    path: '/dashboard/api/password-resets',
    summary:
      'Ask for a password-reset link (mailed when the address has an account; the answer is the same either way; rate-limited)',
    request: { body: passwordResetRequestBodySchema },
    responses: { 202: { description: 'Accepted', schema: dataOf(passwordResetRequestedSchema) } },
  }),
  resetPassword: defineOperation({
    ...common,
    id: 'dashboardResetPassword',
    errors: ['FORBIDDEN'],
    method: 'post',
    path: '/dashboard/api/password-resets/complete',
    summary:
      "Set a new password with a reset link's token (once, within 30 minutes); every session of the account ends",
    request: { body: resetPasswordBodySchema },
    description:
      'A link that expired or was used answers 400 VALIDATION_ERROR naming the field `token`; a password the policy refuses (under 12 characters, common, breached or guessable) names `password`, with a hint.',
    responses: {
      200: { description: 'The password is reset: sign in with it', schema: dataOf(passwordResetSchema) },
    },
  }),
};

import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '@svc/ports';
import type { TransactionRunner } from './ports';

/** A verification link works this long; signing up again sends a new one. */
export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;
/** A password-reset link works this long (OWASP: short-lived), once. */
export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;
/** Sign-ups and reset requests are counted per client address in windows of this length. */
export const ACCOUNT_MAIL_WINDOW_SECONDS = 60 * 60;
/** Default of SIGN_UPS_PER_HOUR: sign-ups (and, separately, reset requests) per client address and hour. */
export const DEFAULT_SIGN_UPS_PER_HOUR = 5;

/** A link's secret (256 bits, base64url); only its SHA-256 is stored. */
export function newMailToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashMailToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A sign-up whose address is not verified yet: no account exists until its link is followed. */
export interface PendingSignUp {
  email: string;
  name: string;
  role: 'creator' | 'platform';
  passwordHash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** One message to send, written to the outbox in the transaction of the change it tells about. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** A row of the outbox the relay sends. */
export interface QueuedMail extends OutgoingMail {
  id: string;
  attempts: number;
}

/** Pending sign-ups and password-reset links (token hashes only). */
export interface AccountMailStore {
  /** Inserts or replaces the address's pending sign-up (a new password and link). */
  savePendingSignUp(tx: Queryable, pending: PendingSignUp, tokenHash: string): Promise<void>;
  /** Removes and returns the pending sign-up of a link that has not expired; null when there is none. */
  takePendingSignUp(tx: Queryable, tokenHash: string, now: Date): Promise<PendingSignUp | null>;
  saveReset(
    tx: Queryable,
    reset: { tokenHash: string; accountId: string; createdAt: Date; expiresAt: Date },
  ): Promise<void>;
  /** The account of an unused, unexpired reset link; null when there is none. */
  findReset(q: Queryable, tokenHash: string, now: Date): Promise<string | null>;
  /** The account of an unused, unexpired reset link, marked used (once, even under a race); else null. */
  useReset(tx: Queryable, tokenHash: string, now: Date): Promise<string | null>;
  /** The account's new password (argon2id). */
  setPasswordHash(tx: Queryable, accountId: string, passwordHash: string): Promise<void>;
  /** The account's other reset links stop working (its password just changed). */
  endResetsOf(tx: Queryable, accountId: string, now: Date): Promise<void>;
  /** Drops sign-ups and reset links that expired before `before`, and mail sent before it. */
  purge(q: Queryable, before: Date): Promise<number>;
}

/** The mail outbox: packages/messaging's outbox pattern, for mail (the state change and its mail commit together). */
export interface MailOutboxStore {
  enqueue(tx: Queryable, mail: OutgoingMail & { id: string; createdAt: Date }): Promise<void>;
  /** Up to `limit` due messages, claimed: none is due again for `leaseMs` (another relay skips them). */
  claimDue(q: TransactionRunner, now: Date, leaseMs: number, limit: number): Promise<QueuedMail[]>;
  /** Sent: the body (its link's token) is emptied. */
  markSent(tx: Queryable, id: string, at: Date): Promise<void>;
  markFailed(tx: Queryable, id: string, nextAttemptAt: Date, error: string): Promise<void>;
  /** Messages not sent yet (readiness of the relay, tests). */
  countUnsent(q: Queryable): Promise<number>;
}

/** Where a mail's links point: PUBLIC_BASE_URL's dashboard pages. */
export interface MailLinks {
  baseUrl: string;
}

const page = (links: MailLinks, path: string) => `${links.baseUrl}/dashboard/${path}`;

// The token travels in the fragment: browsers do not send it to the server or in a Referer, so it
// stays out of access logs and proxies; the page posts it.
export function verificationMail(links: MailLinks, to: string, name: string, token: string): OutgoingMail {
  return {
    to,
    subject: 'Confirm your e-mail address',
    text: [
      `Hello ${name},`,
      '',
      'Confirm your e-mail address to finish signing up (the link works for 24 hours, once):',
      '',
      page(links, `verify-email#token=${token}`),
      '',
      'If you did not sign up, ignore this message: no account is created without this link.',
    ].join('\n'),
  };
}

export function alreadyRegisteredMail(links: MailLinks, to: string, name: string): OutgoingMail {
  return {
    to,
    subject: 'You already have an account',
    text: [
      `Hello ${name},`,
      '',
      'Someone (perhaps you) tried to sign up with this address, which already has an account.',
      'Nothing was changed. Sign in here:',
      '',
      page(links, 'sign-in'),
      '',
      'Forgot your password? Ask for a reset link here:',
      '',
      page(links, 'forgot-password'),
    ].join('\n'),
  };
}

export function passwordResetMail(links: MailLinks, to: string, name: string, token: string): OutgoingMail {
  return {
    to,
    subject: 'Reset your password',
    text: [
      `Hello ${name},`,
      '',
      'Choose a new password here (the link works for 30 minutes, once):',
      '',
      page(links, `reset-password#token=${token}`),
      '',
      'Resetting it signs out every session of your account.',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ].join('\n'),
  };
}

/** Retry backoff of the relay: 5 s doubling to at most an hour (attempts counts failures so far). */
export function nextAttemptDelayMs(attempts: number): number {
  return Math.min(60 * 60 * 1000, 5000 * 2 ** Math.max(0, attempts - 1));
}

/** What a creator is told of (#30): a license request waiting for their decision, a violation on their identity. */
export function licenseRequestMail(
  links: MailLinks,
  to: string,
  name: string,
  request: { identityName: string; tier: string; licenseeName: string; boxId: string; requestId: string },
): OutgoingMail {
  return {
    to,
    subject: `A license request for ${request.identityName} is waiting for you`,
    text: [
      `Hello ${name},`,
      '',
      `${request.licenseeName} asks for a ${request.tier} license of ${request.identityName} (request ${request.requestId}).`,
      'Nothing is granted until you approve it. Review it on the box:',
      '',
      page(links, `boxes/${request.boxId}`),
    ].join('\n'),
  };
}

export function violationMail(
  links: MailLinks,
  to: string,
  name: string,
  violation: {
    identityName: string;
    platformName: string;
    severity: string;
    confidence: number;
    boxId: string;
    violationId: string;
    graceDays: number | null;
  },
): OutgoingMail {
  return {
    to,
    subject: `A possible violation of ${violation.identityName} on ${violation.platformName}`,
    text: [
      `Hello ${name},`,
      '',
      `${violation.platformName} hosts an avatar that matches ${violation.identityName} ` +
        `(confidence ${Math.round(violation.confidence * 100)} %, severity ${violation.severity}; violation ${violation.violationId}).`,
      violation.graceDays === null
        ? 'It is recorded against the platform.'
        : `The platform has ${violation.graceDays} days to license the identity or take the avatar down.`,
      'See it on the box:',
      '',
      page(links, `boxes/${violation.boxId}`),
    ].join('\n'),
  };
}

/** Another account claims a name the recipient's verified claim protects (issue #32, "Creators"). */
export function claimConflictMail(
  links: MailLinks,
  to: string,
  name: string,
  conflict: { name: string; existingName: string; existingClaimId: string; claimId: string },
): OutgoingMail {
  return {
    to,
    subject: `Another account claims ${conflict.name}, a name you protect`,
    text: [
      `Hello ${name},`,
      '',
      `Another account has claimed ${conflict.name} (claim ${conflict.claimId}), a name your verified claim of ${conflict.existingName} protects.`,
      'The operator reviews the new claim side by side with yours before it can be verified; your protection is unchanged meanwhile.',
      'Nothing is asked of you. If you did not expect this, contact the operator. Your claim:',
      '',
      page(links, `claims/${conflict.existingClaimId}`),
    ].join('\n'),
  };
}

/** An owner invited the address to join their tenant (issue #32, "Platform members"; ADR 0034). */
export function invitationMail(
  links: MailLinks,
  to: string,
  invitation: { tenantName: string; inviterName: string; role: string; token: string; days: number },
): OutgoingMail {
  const role = { owner: 'an owner', developer: 'a developer', read_only: 'a read-only member' }[
    invitation.role
  ];
  return {
    to,
    subject: `You are invited to join ${invitation.tenantName}`,
    text: [
      'Hello,',
      '',
      `${invitation.inviterName} invites you to join ${invitation.tenantName} as ${role ?? invitation.role}.`,
      `Choose your name and a password to accept (the link works for ${invitation.days} days, once):`,
      '',
      page(links, `accept-invitation#token=${invitation.token}`),
      '',
      'If you did not expect this, ignore this message: nothing happens without this link.',
    ].join('\n'),
  };
}

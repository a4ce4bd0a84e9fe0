import { newId } from '@svc/ids';
import type { Clock } from '@svc/clock';
import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import {
  ACCOUNT_MAIL_WINDOW_SECONDS,
  alreadyRegisteredMail,
  DEFAULT_SIGN_UPS_PER_HOUR,
  hashMailToken,
  newMailToken,
  VERIFICATION_TTL_MS,
  verificationMail,
  type AccountMailStore,
  type MailLinks,
  type MailOutboxStore,
  type OutgoingMail,
} from './account-mail';
import { assertAcceptablePassword } from './password-policy';
import { windowOf } from './rate-limit';
import type { TransactionRunner } from './ports';
import type { AccountStore, PasswordHasher, RateCounterStore } from './account-ports';

export interface SignUpInput {
  email: string;
  password: string;
  name: string;
  role: 'creator' | 'platform';
}

/** What the account-mail use cases need besides the gateway's stores. */
export interface AccountMailDeps {
  db: TransactionRunner;
  accounts: AccountStore;
  counters: RateCounterStore;
  passwords: PasswordHasher;
  clock: Clock;
  accountMail: AccountMailStore;
  mailOutbox: MailOutboxStore;
  /** SIGN_UPS_PER_HOUR: sign-ups (and, apart, reset requests) per client address and per address an hour. */
  signUpsPerHour?: number | undefined;
  /** Wakes the mail relay (a mail was queued); the relay also polls. */
  mailQueued?: (() => void) | undefined;
}

/** The one answer to every accepted sign-up, whether the address had an account or not. */
export interface SignUpAccepted {
  status: 'verification_sent';
  email: string;
}

/**
 * Counts one request from `client` (and to `email`) in this hour's buckets; past the limit it is
 * refused with 429 and Retry-After. The per-address bucket keeps anyone from flooding one inbox.
 */
export async function throttleAccountMail(
  deps: Pick<AccountMailDeps, 'db' | 'counters' | 'clock' | 'signUpsPerHour'>,
  what: 'sign-up' | 'password-reset',
  who: { client: string; email: string },
): Promise<void> {
  const now = deps.clock.now();
  const window = windowOf(now, ACCOUNT_MAIL_WINDOW_SECONDS);
  const limit = deps.signUpsPerHour ?? DEFAULT_SIGN_UPS_PER_HOUR;
  const buckets = [`${what}-client:${who.client}`, `${what}-email:${who.email}`].map((bucket) => ({
    bucket,
    windowStart: window.start,
  }));
  const counts = await deps.counters.increment(deps.db, buckets);
  if (buckets.every(({ bucket }) => (counts.get(bucket) ?? 0) <= limit)) return;
  const minutes = Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 60_000));
  const doing = what === 'sign-up' ? 'sign-ups' : 'password-reset requests';
  throw errors.rateLimited(
    `Too many ${doing}. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    limit,
    window.end,
    now,
  );
}

/** Writes a mail to the outbox in the caller's transaction. */
export async function queueMail(
  deps: Pick<AccountMailDeps, 'mailOutbox' | 'clock'>,
  tx: Queryable,
  mail: OutgoingMail,
): Promise<void> {
  await deps.mailOutbox.enqueue(tx, { ...mail, id: newId('mail'), createdAt: deps.clock.now() });
}

/**
 * A person signs up (ADR 0024, #30). The answer is the same whether the address has an account or
 * not (no address enumeration), and takes as long (the password is hashed either way):
 * - a new address gets a pending sign-up and a mail with a verification link; the account and its
 *   tenant are created when the link is followed (verify-email.use-case.ts);
 * - an address with an account gets a mail saying so, with sign-in and reset links; nothing changes.
 * The password is checked by the policy first (its refusal says nothing about the address).
 */
export async function signUp(
  deps: AccountMailDeps,
  input: SignUpInput,
  request: { client: string; links: MailLinks },
): Promise<SignUpAccepted> {
  await throttleAccountMail(deps, 'sign-up', { client: request.client, email: input.email });
  assertAcceptablePassword(input.password, { email: input.email, name: input.name });
  // Hashed before the transaction (argon2 takes tens of milliseconds), and for a known address too.
  const passwordHash = await deps.passwords.hash(input.password);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const existing = await deps.accounts.findByEmail(tx, input.email);
    if (existing !== null) {
      await queueMail(deps, tx, alreadyRegisteredMail(request.links, input.email, existing.account.name));
      return;
    }
    const token = newMailToken();
    await deps.accountMail.savePendingSignUp(
      tx,
      {
        email: input.email,
        name: input.name,
        role: input.role,
        passwordHash,
        createdAt: now,
        expiresAt: new Date(now.getTime() + VERIFICATION_TTL_MS),
      },
      hashMailToken(token),
    );
    await queueMail(deps, tx, verificationMail(request.links, input.email, input.name, token));
  });
  deps.mailQueued?.();
  return { status: 'verification_sent', email: input.email };
}

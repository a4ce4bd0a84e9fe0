import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import { violationCreated } from '@svc/contracts/enforcement';
import { licenseRequestCreated } from '@svc/contracts/licensing';
import { claimConflictDetected } from '@svc/contracts/registry';
import type { Queryable } from '@svc/ports';
import {
  claimConflictMail,
  licenseRequestMail,
  violationMail,
  type MailLinks,
  type MailOutboxStore,
  type OutgoingMail,
} from './account-mail';
import type { PlatformStore } from './ports';
import type { AccountStore } from './account-ports';
import { queueMail } from './sign-up.use-case';

/** The grace period a violation opens (service interface, Enforcement: 30 days to comply). */
const GRACE_PERIOD_DAYS = 30;

export interface NotifyCreatorsDeps {
  accounts: AccountStore;
  platforms: PlatformStore;
  mailOutbox: MailOutboxStore;
  clock: Clock;
  /** Where the mailed links point (PUBLIC_BASE_URL, or the gateway's own address in development). */
  links(): MailLinks;
}

/**
 * Tells the people of the box's owner what they must know (#30), in the transaction that records
 * the event as processed: the mail is in the outbox when the event is acknowledged, and a redelivery
 * mails nobody twice. A license request is told of only when it waits for the owner's decision (a
 * tier approved automatically is not news to act on); a violation always; another account's claim
 * on a name the tenant's verified claim protects, always. A tenant nobody signs in
 * as (created through the admin API) has no one to mail.
 */
export async function notifyCreators(
  deps: NotifyCreatorsDeps,
  tx: Queryable,
  received: EventEnvelope,
): Promise<number> {
  const mails = await mailsFor(deps, tx, received);
  for (const mail of mails) await queueMail(deps, tx, mail);
  return mails.length;
}

async function mailsFor(
  deps: NotifyCreatorsDeps,
  tx: Queryable,
  received: EventEnvelope,
): Promise<OutgoingMail[]> {
  if (received.type === licenseRequestCreated.type) {
    const { data } = licenseRequestCreated.parse(received);
    if (data.awaitsReview === false) return [];
    const people = await deps.accounts.listByPlatform(tx, data.boxOwnerPlatformId);
    if (people.length === 0) return [];
    const licensee = await deps.platforms.find(tx, data.licenseePlatformId);
    const links = deps.links();
    return people.map((person) =>
      licenseRequestMail(links, person.email, person.name, {
        identityName: data.identityName,
        tier: data.tier,
        licenseeName: licensee?.name ?? data.licenseePlatformId,
        boxId: data.boxId,
        requestId: data.requestId,
      }),
    );
  }
  if (received.type === violationCreated.type) {
    const event = violationCreated.parse(received);
    const { data } = event;
    const people = await deps.accounts.listByPlatform(tx, data.boxOwnerPlatformId);
    if (people.length === 0) return [];
    // The envelope's platform is the one hosting the avatar.
    const host = event.platformId === undefined ? null : await deps.platforms.find(tx, event.platformId);
    const links = deps.links();
    return people.map((person) =>
      violationMail(links, person.email, person.name, {
        identityName: data.identityName,
        platformName: host?.name ?? event.platformId ?? 'A platform',
        severity: data.severity,
        confidence: data.confidence,
        boxId: data.boxId,
        violationId: data.violationId,
        graceDays: data.gracePeriodId === null ? null : GRACE_PERIOD_DAYS,
      }),
    );
  }
  if (received.type === claimConflictDetected.type) {
    const { data } = claimConflictDetected.parse(received);
    const people = await deps.accounts.listByPlatform(tx, data.existingOwnerPlatformId);
    const links = deps.links();
    return people.map((person) => claimConflictMail(links, person.email, person.name, data));
  }
  // The queue binds only the types above; anything else is acknowledged and ignored.
  return [];
}

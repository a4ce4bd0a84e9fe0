import { violationCreated } from '@svc/contracts/enforcement';
import { licenseRequestCreated } from '@svc/contracts/licensing';
import { claimConflictDetected } from '@svc/contracts/registry';
import { InProcessMessageBus } from '@svc/messaging';
import { startHarness, type Harness } from '../fixtures/gateway-harness';

// The mail creators expect (#30, ADR 0028): a license request waiting for their decision and a
// violation on their identity reach the people of the box's owner, through the mail outbox, once
// per event however often the bus delivers it.
let h: Harness;
const bus = new InProcessMessageBus();
let owner: { platformId: string; email: string };
let studio: { platformId: string };

beforeAll(async () => {
  h = await startHarness({ bus });
  const email = 'ada.notified@example.com';
  const signed = await h.signUp({
    email,
    name: 'Ada Lovelace',
    role: 'creator',
    password: 'violet tractor umbrella 42',
  });
  expect(signed.status).toBe(200);
  owner = { platformId: signed.body.data.account.platformId, email };
  const created = await h.admin('POST', '/admin/platforms', { name: 'Avatar Studio', plan: 'sandbox' });
  studio = { platformId: created.body.data.id };
});
afterAll(async () => {
  await h.stop();
  await bus.close();
});

const inboxOf = (email: string) => h.mail.inbox(email).filter((m) => !m.subject.startsWith('Confirm'));

function requestEvent(awaitsReview: boolean | undefined, ownerPlatformId = owner.platformId) {
  return licenseRequestCreated.create(
    {
      requestId: `req_${Math.random().toString(36).slice(2, 14)}`,
      boxId: 'box_notified000000000000000',
      claimId: 'claim_notified0000000000000',
      identityName: 'Ada Lovelace',
      tier: 'commercial',
      licenseePlatformId: studio.platformId,
      boxOwnerPlatformId: ownerPlatformId,
      submittedAt: new Date().toISOString(),
      ...(awaitsReview === undefined ? {} : { awaitsReview }),
    },
    { occurredAt: new Date(), platformId: studio.platformId },
  );
}

/** Publishes a request that waits for the owner and waits for its mail. */
async function barrier(awaitsReview: boolean | undefined = true): Promise<void> {
  const event = requestEvent(awaitsReview);
  await bus.publish(event);
  await h.mail.waitFor((m) => m.text.includes(event.data.requestId));
}

describe('creator notifications', () => {
  it('when a license request waits for the owner, then the owner is mailed once, with the licensee and a link to the box, even if the event is delivered twice', async () => {
    const before = inboxOf(owner.email).length;
    const event = requestEvent(true);
    await bus.publish(event);
    const mail = await h.mail.waitFor(
      (m) => m.to.includes(owner.email) && m.text.includes(event.data.requestId),
    );
    expect(mail.subject).toBe('A license request for Ada Lovelace is waiting for you');
    expect(mail.text).toContain('Avatar Studio asks for a commercial license of Ada Lovelace');
    expect(mail.links).toContain(`${h.url}/dashboard/boxes/box_notified000000000000000`);

    // At-least-once delivery: the same event again mails nobody (a later event's mail is the
    // barrier: the outbox is sent in order, so a second copy would have arrived before it).
    await bus.publish(event);
    await barrier();
    expect(inboxOf(owner.email).length).toBe(before + 2);
  });

  it('when a request is approved automatically, then nobody is mailed; an event from before awaitsReview existed is told of', async () => {
    const before = inboxOf(owner.email).length;
    await bus.publish(requestEvent(false));
    await barrier(undefined);
    expect(inboxOf(owner.email).length).toBe(before + 1);
  });

  it('when a violation of the identity is detected, then the owner is mailed with the hosting platform, the confidence and the grace period', async () => {
    const event = violationCreated.create(
      {
        violationId: 'viol_notified00000000000000',
        boxId: 'box_notified000000000000000',
        claimId: 'claim_notified0000000000000',
        identityName: 'Ada Lovelace',
        boxOwnerPlatformId: owner.platformId,
        policy: 'MONETIZE',
        severity: 'high',
        avatarId: 'avatar-77',
        userCount: 1200,
        gracePeriodId: 'grace_notified000000000000',
        occurredAt: new Date().toISOString(),
        detectedAt: new Date().toISOString(),
        confidence: 0.93,
      },
      { occurredAt: new Date(), platformId: studio.platformId },
    );
    await bus.publish(event);
    const mail = await h.mail.waitFor((m) => m.text.includes('viol_notified00000000000000'));
    expect(mail.to).toContain(owner.email);
    expect(mail.subject).toBe('A possible violation of Ada Lovelace on Avatar Studio');
    expect(mail.text).toContain('confidence 93 %');
    expect(mail.text).toContain('30 days to license the identity or take the avatar down');
    expect(mail.links).toContain(`${h.url}/dashboard/boxes/box_notified000000000000000`);
  });

  it('when another account claims a name the owner protects, then the owner is mailed once with a link to their claim, and not told who claims it', async () => {
    const event = claimConflictDetected.create(
      {
        claimId: 'claim_contested0000000000000',
        name: 'ada lovelace',
        claimantPlatformId: studio.platformId,
        existingClaimId: 'claim_notified0000000000000',
        existingName: 'Ada Lovelace',
        existingOwnerPlatformId: owner.platformId,
        detectedAt: new Date().toISOString(),
      },
      { occurredAt: new Date(), platformId: owner.platformId },
    );
    const before = inboxOf(owner.email).length;
    await bus.publish(event);
    const mail = await h.mail.waitFor((m) => m.text.includes('claim_contested0000000000000'));
    expect(mail.to).toContain(owner.email);
    expect(mail.subject).toBe('Another account claims ada lovelace, a name you protect');
    expect(mail.text).toContain('your verified claim of Ada Lovelace protects');
    expect(mail.text).toContain('side by side with yours');
    expect(mail.text).not.toContain('Avatar Studio');
    expect(mail.links).toContain(`${h.url}/dashboard/claims/claim_notified0000000000000`);
    await bus.publish(event);
    await barrier();
    expect(inboxOf(owner.email).length).toBe(before + 2);
  });

  it('when the owner has no account (a tenant of the admin API), then the event is acknowledged and nobody is mailed', async () => {
    const total = h.mail.inbox().length;
    await bus.publish(requestEvent(true, studio.platformId));
    await barrier();
    expect(h.mail.inbox().length).toBe(total + 1);
  });
});

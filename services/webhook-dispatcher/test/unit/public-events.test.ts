import { paymentDue } from '@svc/contracts/billing';
import {
  gracePeriodCancelled,
  gracePeriodEnding,
  gracePeriodExpired,
  gracePeriodPaused,
  gracePeriodReminder,
  gracePeriodResolved,
  gracePeriodResumed,
  gracePeriodStarted,
} from '@svc/contracts/enforcement';
import { licenseRequestApproved, licenseRequestDenied } from '@svc/contracts/licensing';
import { publicEventBodySchemas, WEBHOOK_EVENT_TYPES } from '@svc/contracts/webhook-dispatcher';
import {
  endpointDisabledEvent,
  endpointWants,
  publicEventId,
  toPublicEvents,
} from '../../src/domain/public-events';
import { sampleEvent } from '../../src/domain/sample-events';

const at = new Date('2026-03-01T12:00:00.000Z');
const meta = { occurredAt: at, platformId: 'plat_avatars', id: 'evt_source000000000000001' };
const gp = {
  gracePeriodId: 'gp_1',
  violationId: 'viol_1',
  boxId: 'box_1',
  claimId: 'claim_1',
  identityName: 'Ada Lovelace',
  boxOwnerPlatformId: 'plat_owner',
  policy: 'LICENSE' as const,
  status: 'active' as const,
  startedAt: '2026-03-01T12:00:00.000Z',
  expiresAt: '2026-03-31T12:00:00.000Z',
  daysRemaining: 30,
  avatarIds: ['av_1'],
};
const gpData = {
  gracePeriodId: 'gp_1',
  violationId: 'viol_1',
  boxId: 'box_1',
  identityId: 'claim_1',
  identityName: 'Ada Lovelace',
  policy: 'LICENSE',
  status: 'active',
  startedAt: gp.startedAt,
  expiresAt: gp.expiresAt,
  daysRemaining: 30,
  avatarIds: ['av_1'],
};
const request = {
  requestId: 'req_1',
  boxId: 'box_1',
  claimId: 'claim_1',
  identityName: 'Ada Lovelace',
  tier: 'commercial' as const,
  licenseePlatformId: 'plat_avatars',
  boxOwnerPlatformId: 'plat_owner',
  submittedAt: '2026-03-01T11:00:00.000Z',
};

function only(envelope: Parameters<typeof toPublicEvents>[0]) {
  const events = toPublicEvents(envelope);
  expect(events).toHaveLength(1);
  return events[0]!;
}

describe('internal events → public payloads', () => {
  it('when a grace period starts, then grace_period.started, boxing.created and boxing.grace_started are sent', () => {
    const events = toPublicEvents(gracePeriodStarted.create(gp, meta));
    expect(events.map((e) => e.type)).toEqual([
      'grace_period.started',
      'boxing.created',
      'boxing.grace_started',
    ]);
    expect(events.every((e) => e.platformId === 'plat_avatars')).toBe(true);
    const [started, created, graceStarted] = events;
    expect(started!.body).toEqual({
      id: started!.id,
      type: 'grace_period.started',
      createdAt: '2026-03-01T12:00:00.000Z',
      data: gpData,
    });
    const boxing = {
      identity_id: 'claim_1',
      identity_name: 'Ada Lovelace',
      box_id: 'box_1',
      violation_id: 'viol_1',
      grace_period_id: 'gp_1',
      avatar_ids: ['av_1'],
      policy: 'LICENSE',
      deadline: '2026-03-31T12:00:00.000Z',
      days_remaining: 30,
    };
    expect(created!.body).toEqual({
      id: created!.id,
      event: 'boxing.created',
      createdAt: at.toISOString(),
      data: boxing,
    });
    expect(graceStarted!.body).toEqual({
      id: graceStarted!.id,
      event: 'boxing.grace_started',
      createdAt: at.toISOString(),
      data: boxing,
    });
  });

  it('when a reminder fires, then data.reminderDay is set', () => {
    const event = only(gracePeriodReminder.create({ ...gp, reminderDay: 21, daysRemaining: 9 }, meta));
    expect(event.body).toMatchObject({
      type: 'grace_period.reminder',
      data: { reminderDay: 21, daysRemaining: 9 },
    });
  });

  it.each([
    [gracePeriodEnding, 'grace_period.ending', {}],
    [gracePeriodExpired, 'grace_period.expired', { status: 'expired' }],
  ] as const)(
    'when %s, then the same-named public event carries the grace period',
    (definition, type, extra) => {
      const event = only(definition.create({ ...gp, ...extra }, meta));
      expect(event.body).toEqual({
        id: event.id,
        type,
        createdAt: at.toISOString(),
        data: { ...gpData, ...extra },
      });
    },
  );

  it('when paused or resumed, then the appeal id is included', () => {
    const paused = only(gracePeriodPaused.create({ ...gp, status: 'paused', appealId: 'appeal_1' }, meta));
    expect(paused.body).toMatchObject({
      type: 'grace_period.paused',
      data: { appealId: 'appeal_1', status: 'paused' },
    });
    const resumed = only(gracePeriodResumed.create({ ...gp, appealId: 'appeal_1' }, meta));
    expect(resumed.body).toMatchObject({ type: 'grace_period.resumed', data: { appealId: 'appeal_1' } });
  });

  it('when resolved, then the resolution is included', () => {
    const event = only(
      gracePeriodResolved.create(
        { ...gp, status: 'resolved', resolution: 'licensed', remainingAvatars: 0 },
        meta,
      ),
    );
    expect(event.body).toMatchObject({
      type: 'grace_period.resolved',
      data: { resolution: 'licensed', remainingAvatars: 0 },
    });
  });

  it('when cancelled (box removed), then it is delivered as grace_period.resolved with resolution box_removed', () => {
    const event = only(gracePeriodCancelled.create({ ...gp, status: 'cancelled' }, meta));
    expect(event.type).toBe('grace_period.resolved');
    expect(event.body).toMatchObject({
      data: { resolution: 'box_removed', status: 'cancelled', remainingAvatars: 0 },
    });
  });

  it('when a license request is approved, then license.approved carries license_id', () => {
    const approved = licenseRequestApproved.create(
      { ...request, licenseId: 'lic_1', approvedAt: '2026-03-01T12:00:00.000Z', automatic: false },
      meta,
    );
    const event = only(approved);
    expect(event.body).toEqual({
      id: event.id,
      event: 'license.approved',
      createdAt: at.toISOString(),
      data: {
        license_id: 'lic_1',
        request_id: 'req_1',
        identity_id: 'claim_1',
        identity_name: 'Ada Lovelace',
        box_id: 'box_1',
        tier: 'commercial',
        automatic: false,
        approved_at: '2026-03-01T12:00:00.000Z',
      },
    });
  });

  it('when a license request is denied, then license.denied carries identity_id', () => {
    const event = only(
      licenseRequestDenied.create({ ...request, reason: 'no', deniedAt: at.toISOString() }, meta),
    );
    expect(event.body).toMatchObject({
      event: 'license.denied',
      data: { identity_id: 'claim_1', request_id: 'req_1', reason: 'no' },
    });
  });

  it('when a payment is due, then payment.due carries a decimal amount, currency and recipient', () => {
    const event = only(
      paymentDue.create(
        {
          paymentId: 'pay_1',
          licenseId: 'lic_1',
          boxId: 'box_1',
          period: '2026-02',
          amountCents: 123_456,
          currency: 'EUR',
          recipient: 'plat_owner',
          payerPlatformId: 'plat_avatars',
          dueDate: '2026-03-15T00:00:00.000Z',
        },
        meta,
      ),
    );
    expect(event.body).toMatchObject({
      event: 'payment.due',
      data: {
        amount: 1234.56,
        currency: 'EUR',
        recipient: 'plat_owner',
        license_id: 'lic_1',
        period: '2026-02',
      },
    });
  });

  it('when the same internal event is redelivered, then the public ids are the same', () => {
    const a = toPublicEvents(gracePeriodStarted.create(gp, meta)).map((e) => e.id);
    const b = toPublicEvents(gracePeriodStarted.create(gp, meta)).map((e) => e.id);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(3);
    expect(a[0]).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(publicEventId('evt_x', 'payment.due')).not.toBe(publicEventId('evt_y', 'payment.due'));
  });

  it('when an event has no platform or is not platform-facing, then nothing is sent', () => {
    const { platformId: _omit, ...noPlatform } = meta;
    expect(toPublicEvents(gracePeriodStarted.create(gp, noPlatform))).toEqual([]);
    expect(toPublicEvents({ ...gracePeriodStarted.create(gp, meta), type: 'registry.box.created' })).toEqual(
      [],
    );
  });

  it('when an endpoint is disabled, then webhook.endpoint_disabled has the grace-period shape', () => {
    const event = endpointDisabledEvent({
      platformId: 'plat_avatars',
      endpointId: 'we_1',
      url: 'https://x.example/h',
      reason: 'gone',
      disabledAt: at,
      lastError: 'HTTP 410',
    });
    expect(event.body).toEqual({
      id: event.id,
      type: 'webhook.endpoint_disabled',
      createdAt: at.toISOString(),
      data: {
        endpointId: 'we_1',
        url: 'https://x.example/h',
        reason: 'gone',
        disabledAt: at.toISOString(),
        lastError: 'HTTP 410',
      },
    });
  });

  it('when a sample is asked for any public type, then it has that type, the family shape and test: true', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const event = sampleEvent(type, 'plat_avatars', at);
      expect(event.type).toBe(type);
      expect(event.body.test).toBe(true);
      expect(event.body.id).toBe(event.id);
      const key = type.startsWith('grace_period.') || type.startsWith('webhook.') ? 'type' : 'event';
      expect(event.body[key]).toBe(type);
    }
  });

  it('when any public event is built, then its body is exactly what the contract (and the OpenAPI webhooks section) says', () => {
    const built = [
      ...toPublicEvents(gracePeriodStarted.create(gp, meta)),
      ...toPublicEvents(gracePeriodCancelled.create({ ...gp, status: 'cancelled' }, meta)),
      ...WEBHOOK_EVENT_TYPES.map((type) => sampleEvent(type, 'plat_avatars', at)),
    ];
    for (const event of built) {
      const parsed = publicEventBodySchemas[event.type].safeParse(event.body);
      expect({ type: event.type, issues: parsed.error?.issues ?? [] }).toEqual({
        type: event.type,
        issues: [],
      });
    }
    // A field the contract does not know is refused: the schemas are strict.
    const sample = sampleEvent('license.approved', 'plat_avatars', at).body;
    expect(publicEventBodySchemas['license.approved'].safeParse({ ...sample, extra: 1 }).success).toBe(false);
  });

  it('when filtering, then * and listed names match', () => {
    expect(endpointWants(['*'], 'payment.due')).toBe(true);
    expect(endpointWants(['license.approved'], 'payment.due')).toBe(false);
    expect(endpointWants(['payment.due'], 'payment.due')).toBe(true);
  });
});

import { z } from 'zod';
import { allEvents, defineEvent, eventEnvelopeSchema, listEvents } from '../../src';

const OCCURRED_AT = new Date('2026-03-01T12:00:00.000Z');

const claimVerified = defineEvent(
  'sample.claim.verified',
  1,
  z.object({ claimId: z.string().startsWith('claim_'), tier: z.enum(['SILVER', 'GOLD']) }),
);

function zodIssuePaths(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof z.ZodError) return err.issues.map((issue) => issue.path.join('.'));
    throw err;
  }
  throw new Error('expected a ZodError, got none');
}

describe('defineEvent create()', () => {
  it('when created, then the envelope has an evt_ id, the type, the version, an ISO occurredAt and the data', () => {
    const envelope = claimVerified.create({ claimId: 'claim_1', tier: 'GOLD' }, { occurredAt: OCCURRED_AT });

    expect(envelope).toStrictEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{16,}$/),
      type: 'sample.claim.verified',
      version: 1,
      occurredAt: '2026-03-01T12:00:00.000Z',
      data: { claimId: 'claim_1', tier: 'GOLD' },
    });
    expect(eventEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });

  it('when no platformId or requestId is given, then the envelope has no such keys at all', () => {
    const envelope = claimVerified.create(
      { claimId: 'claim_1', tier: 'GOLD' },
      { occurredAt: OCCURRED_AT, platformId: undefined, requestId: undefined },
    );

    expect(Object.keys(envelope).sort()).toEqual(['data', 'id', 'occurredAt', 'type', 'version']);
  });

  it('when platformId and requestId are given, then the envelope carries them', () => {
    const envelope = claimVerified.create(
      { claimId: 'claim_1', tier: 'SILVER' },
      { occurredAt: OCCURRED_AT, platformId: 'plat_abc', requestId: 'req-42' },
    );

    expect(envelope).toMatchObject({ platformId: 'plat_abc', requestId: 'req-42' });
  });

  it('when an id is given, then it is kept; otherwise each envelope gets a new one', () => {
    const id = 'evt_0123456789abcdefABCDEF';
    const data = { claimId: 'claim_1', tier: 'GOLD' } as const;

    expect(claimVerified.create(data, { occurredAt: OCCURRED_AT, id }).id).toBe(id);
    expect(claimVerified.create(data, { occurredAt: OCCURRED_AT }).id).not.toBe(
      claimVerified.create(data, { occurredAt: OCCURRED_AT }).id,
    );
  });

  it('when the data is bad, then create refuses, naming each bad field, and no envelope is made', () => {
    const bad = { claimId: 'box_1', tier: 'BRONZE' } as unknown as { claimId: string; tier: 'GOLD' };

    expect(zodIssuePaths(() => claimVerified.create(bad, { occurredAt: OCCURRED_AT })).sort()).toEqual([
      'claimId',
      'tier',
    ]);
  });

  it('when the given id is not an evt_ id, then create refuses rather than send an envelope consumers reject', () => {
    expect(() =>
      claimVerified.create(
        { claimId: 'claim_1', tier: 'GOLD' },
        { occurredAt: OCCURRED_AT, id: 'evt_short' },
      ),
    ).toThrow(z.ZodError);
  });

  it('when the data schema transforms its input, then the envelope carries the output', () => {
    const event = defineEvent(
      'billing.payment.received',
      2,
      z.object({ amount: z.string().transform((v) => Number(v)) }),
    );

    expect(event.create({ amount: '12.5' }, { occurredAt: OCCURRED_AT }).data).toEqual({ amount: 12.5 });
  });
});

describe('defineEvent parse()', () => {
  const good = () =>
    claimVerified.create(
      { claimId: 'claim_1', tier: 'GOLD' },
      { occurredAt: OCCURRED_AT, platformId: 'plat_1' },
    );

  it('when a valid envelope of this type arrives (as JSON off the wire), then parse returns it', () => {
    const envelope = good();

    expect(claimVerified.parse(JSON.parse(JSON.stringify(envelope)))).toEqual(envelope);
  });

  it('when the envelope is of another type, then parse refuses it', () => {
    expect(zodIssuePaths(() => claimVerified.parse({ ...good(), type: 'registry.claim.rejected' }))).toEqual([
      'type',
    ]);
  });

  it('when the data is bad, then parse refuses naming the data field', () => {
    expect(
      zodIssuePaths(() => claimVerified.parse({ ...good(), data: { claimId: 'claim_1', tier: 'PLATINUM' } })),
    ).toEqual(['data.tier']);
  });

  it('when the envelope itself is malformed, then parse names each bad envelope field', () => {
    const broken = { ...good(), id: 'msg_1', version: 0, occurredAt: 'yesterday' };

    expect(zodIssuePaths(() => claimVerified.parse(broken)).sort()).toEqual(['id', 'occurredAt', 'version']);
  });

  it('when the message is not an object at all, then parse refuses it', () => {
    expect(() => claimVerified.parse('sample.claim.verified')).toThrow(z.ZodError);
    expect(() => claimVerified.parse(null)).toThrow(z.ZodError);
  });
});

describe('declaring event types', () => {
  it('when the same type is listed twice, then listing the events throws', () => {
    const again = defineEvent('sample.claim.verified', 2, z.object({}));
    expect(() => listEvents([...allEvents, claimVerified, again])).toThrow(
      'Event sample.claim.verified is declared twice',
    );
  });

  it('when the type is not <service>.<entity>.<verb> in lowercase, then it is refused at once', () => {
    expect(() => defineEvent('ClaimVerified', 1, z.object({}))).toThrow(/not <service>\.<entity>\.<verb>/);
    expect(() => defineEvent('registry.claim', 1, z.object({}))).toThrow(/not <service>\.<entity>\.<verb>/);
    expect(() => defineEvent('registry.claim verified.x', 1, z.object({}))).toThrow(
      /not <service>\.<entity>\.<verb>/,
    );
  });

  it('when the version is not a positive integer, then it is refused at once', () => {
    expect(() => defineEvent('registry.box.created', 0, z.object({}))).toThrow(/positive integer/);
    expect(() => defineEvent('registry.box.created', 1.5, z.object({}))).toThrow(/positive integer/);
  });

  it('when the services declare their types, then allEvents lists each of them once, and declaring alone lists nothing', () => {
    const types = allEvents.map((event) => event.type);

    expect(types).toContain('registry.box.created');
    expect(types).toContain('billing.payment.due');
    expect(types).toContain('webhooks.endpoint.disabled');
    expect(new Set(types).size).toBe(types.length);
    expect(types).not.toContain('sample.claim.verified');
    expect(types).not.toContain('billing.payment.received');
  });
});

import { boxDetail, boxListItem, boxStatistics } from '../../src/entry-points/http/box.presenter';
import { claimDetail, claimListItem } from '../../src/entry-points/http/claim.presenter';
import type { Box } from '../../src/domain/box';
import { EMPTY_SUMMARY, periodBounds, periodOf } from '../../src/domain/box-stats';
import type { Claim } from '../../src/domain/claim';

const t = new Date('2026-11-22T10:00:00.000Z');
const claim: Claim = {
  id: 'claim_1',
  ownerPlatformId: 'plat_1',
  name: 'Ada',
  variations: ['A. L.'],
  entityType: 'INDIVIDUAL',
  status: 'verified',
  verificationTier: 'GOLD',
  verification: { method: 'identity_provider', completedAt: t, documents: ['passport'] },
  proofs: [{ type: 'social', platform: 'x', handle: '@ada', verifiedAt: t }],
  referenceImages: [{ id: 'img_1', url: 'https://a/1', isPrimary: true }],
  rejectionReason: 'internal only',
  createdAt: t,
  updatedAt: t,
  verifiedAt: t,
  boxId: 'box_1',
};

describe('claim presenters', () => {
  it('when listed, then only list fields appear (no images, verification or proofs)', () => {
    expect(claimListItem(claim)).toEqual({
      id: 'claim_1',
      name: 'Ada',
      variations: ['A. L.'],
      entityType: 'INDIVIDUAL',
      status: 'verified',
      verificationTier: 'GOLD',
      createdAt: '2026-11-22T10:00:00.000Z',
      verifiedAt: '2026-11-22T10:00:00.000Z',
      hasBox: true,
      boxId: 'box_1',
    });
  });

  it('when the owner reads the detail, then verification, proofs and images appear; for others only images', () => {
    const own = claimDetail(claim, { isOwner: true });
    expect(own).toMatchObject({
      verification: {
        method: 'identity_provider',
        completedAt: '2026-11-22T10:00:00.000Z',
        documents: ['passport'],
      },
      proofs: [{ type: 'social', platform: 'x', handle: '@ada', verifiedAt: '2026-11-22T10:00:00.000Z' }],
      referenceImages: [{ id: 'img_1', url: 'https://a/1', isPrimary: true }],
    });
    const theirs = claimDetail(claim, { isOwner: false });
    expect(theirs).not.toHaveProperty('verification');
    expect(theirs).not.toHaveProperty('proofs');
    expect(theirs).not.toHaveProperty('rejectionReason');
    expect(theirs.referenceImages).toHaveLength(1);
  });

  it('when a claim is pending without a box, then verifiedAt and boxId are absent and hasBox is false', () => {
    const pending = claimListItem({ ...claim, status: 'pending', verifiedAt: null, boxId: null });
    expect(pending).not.toHaveProperty('verifiedAt');
    expect(pending).not.toHaveProperty('boxId');
    expect(pending.hasBox).toBe(false);
  });
});

describe('box presenters', () => {
  const box: Box = {
    id: 'box_1',
    claimId: 'claim_1',
    ownerPlatformId: 'plat_1',
    policy: 'MONETIZE',
    enforcement: 'MODERATE',
    policyConfig: { royaltyRate: 0.15 },
    status: 'active',
    createdAt: t,
    updatedAt: t,
    identityName: 'Ada',
  };
  const stats = {
    ...EMPTY_SUMMARY,
    totalViolations: 3,
    monthlyRevenueCents: 1999n,
    lifetimeRevenueCents: 1_000_001n,
  };

  it('when listed, then royaltyRate and the four list stats appear, never policyConfig', () => {
    const item = boxListItem(box, stats);
    expect(item).not.toHaveProperty('policyConfig');
    expect(item).not.toHaveProperty('updatedAt');
    expect(item.royaltyRate).toBe(0.15);
    expect(item.stats).toEqual({
      totalViolations: 3,
      activeGracePeriods: 0,
      licensedPlatforms: 0,
      monthlyRevenue: 19.99,
    });
  });

  it('when read, then the detail has policyConfig, updatedAt and the seven detail stats, no royaltyRate', () => {
    const detail = boxDetail(box, stats);
    expect(detail).not.toHaveProperty('royaltyRate');
    expect(detail.policyConfig).toEqual({ royaltyRate: 0.15 });
    expect(Object.keys(detail.stats).sort()).toEqual([
      'activeGracePeriods',
      'licensedPlatforms',
      'lifetimeRevenue',
      'monthlyRevenue',
      'resolvedViolations',
      'totalLicenses',
      'totalViolations',
    ]);
    expect(detail.stats.lifetimeRevenue).toBe(10000.01);
  });

  it('when statistics are presented, then cents become currency units without float drift', () => {
    const out = boxStatistics({
      boxId: 'box_1',
      period: '2026-11',
      violations: {
        detected: 1,
        resolved: 0,
        pending: 1,
        appealed: 0,
        resolutions: { licensed: 0, removed: 0, modified: 0, parody: 0 },
        resolvedBy: { platform: 0, license: 0, avatarChange: 0 },
      },
      gracePeriods: { active: 1, expired: 0, resolved: 0 },
      licenses: { total: 0, active: 0, pending: 0, expired: 0 },
      revenueCents: {
        monthly: 35n,
        lifetime: 35n,
        byType: { subscriptions: 10n, messages: 20n, tips: 0n, fees: 5n },
      },
      platforms: { licensed: 0, topPlatforms: [{ name: 'A', revenueCents: 30n, users: 2 }] },
    });
    expect(out.revenue).toEqual({
      monthly: 0.35,
      lifetime: 0.35,
      byType: { subscriptions: 0.1, messages: 0.2, tips: 0, fees: 0.05 },
    });
    expect(out.platforms.topPlatforms).toEqual([{ name: 'A', revenue: 0.3, users: 2 }]);
  });

  it('when the period is computed, then it is the UTC month and its bounds', () => {
    expect(periodOf(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12');
    expect(periodBounds('2026-12')).toEqual({
      start: new Date('2026-12-01T00:00:00.000Z'),
      end: new Date('2027-01-01T00:00:00.000Z'),
    });
  });
});

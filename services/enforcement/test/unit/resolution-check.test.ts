import { tierCovers } from '@svc/commercial-intent';
import type { AvatarMatch } from '@svc/contracts/detection';
import { AppError } from '@svc/errors';
import type { Avatar } from '../../src/domain/avatar';
import {
  admitsParody,
  checkLicense,
  checkReevaluation,
  requireLicenseId,
  type LicenseRecord,
} from '../../src/domain/resolution-check';

// Issue 14: the rules that decide whether a resolution holds, without I/O.

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const avatar = (extra: Partial<Avatar> = {}): Avatar => ({
  ref: 'av_1',
  platformId: 'plat_host',
  id: 'avatar-1',
  name: 'Ada bot',
  description: null,
  imageUrl: null,
  creatorId: 'creator-1',
  creatorName: null,
  creatorEmail: null,
  userCount: 10,
  commercial: false,
  platformDomain: null,
  platformName: null,
  revision: 1,
  evaluation: 'completed',
  evaluationAttempts: 0,
  nextEvaluationAt: null,
  lastEvaluationError: null,
  match: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  deletedAt: null,
  ...extra,
});

const match = (extra: Partial<AvatarMatch> = {}): AvatarMatch => ({
  boxId: 'box_1',
  claimId: 'claim_1',
  identityName: 'Ada Lovelace',
  ownerPlatformId: 'plat_owner',
  policy: 'LICENSE',
  enforcement: 'MODERATE',
  policyConfig: {},
  confidence: 0.97,
  layer: 1,
  classification: 'EXACT_MATCH',
  matchedVariations: ['Ada Lovelace'],
  imageMatchScore: null,
  parodyLikelihood: 0.05,
  ...extra,
});

const license = (extra: Partial<LicenseRecord> = {}): LicenseRecord => ({
  licenseId: 'lic_1',
  boxId: 'box_1',
  licenseePlatformId: 'plat_host',
  status: 'active',
  tier: 'personal',
  ...extra,
});

const facts = { platformId: 'plat_host', boxId: 'box_1', policy: 'LICENSE' as const, commercial: false };

describe('tierCovers', () => {
  it('when the avatar is commercial, then only a commercial or enterprise tier covers it; any tier covers personal use', () => {
    expect(['personal', 'creator', 'commercial', 'enterprise'].map((t) => tierCovers(t, true))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(['personal', 'creator', 'commercial', 'enterprise'].every((t) => tierCovers(t, false))).toBe(true);
    expect(tierCovers(null, true)).toBe(false);
  });
});

describe('checkLicense', () => {
  it('when the license is active, the caller’s, on the box and of a covering tier, then its id and tier are the evidence', () => {
    expect(checkLicense(license(), 'lic_1', facts)).toEqual({ license: { id: 'lic_1', tier: 'personal' } });
  });

  it('when it is unknown, another platform’s, on another box, not active, too low a tier, or the box is BLOCK_ALL, then 409 INVALID_STATE', () => {
    const cases: [LicenseRecord | null, typeof facts, RegExp][] = [
      [null, facts, /not a license of yours/],
      [license({ licenseePlatformId: 'plat_other' }), facts, /not a license of yours/],
      [license({ boxId: 'box_2' }), facts, /not a license of yours/],
      [license({ status: 'revoked' }), facts, /revoked, not active/],
      [license({ status: 'cancelled' }), facts, /cancelled, not active/],
      [license({ tier: 'creator' }), { ...facts, commercial: true }, /does not cover commercial use/],
      [license({ tier: 'enterprise' }), { ...facts, policy: 'BLOCK_ALL' as never }, /BLOCK_ALL/],
    ];
    for (const [record, given, message] of cases) {
      const err = refusal(() => checkLicense(record, 'lic_1', given));
      expect(err.code).toBe('INVALID_STATE');
      expect(err.message).toMatch(message);
    }
  });

  it('when licenseId is missing, then 400 VALIDATION_ERROR naming the field', () => {
    const err = refusal(() => requireLicenseId(undefined));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toEqual({
      fields: [{ field: 'licenseId', message: 'required for resolution licensed' }],
    });
    expect(requireLicenseId('lic_1')).toBe('lic_1');
  });
});

describe('admitsParody', () => {
  it('when the box is STRICT or BLOCK_ALL, then no parody exception', () => {
    expect(admitsParody({ policy: 'LICENSE', enforcement: 'MODERATE' })).toBe(true);
    expect(admitsParody({ policy: 'LICENSE', enforcement: 'RELAXED' })).toBe(true);
    expect(admitsParody({ policy: 'LICENSE', enforcement: 'STRICT' })).toBe(false);
    expect(admitsParody({ policy: 'BLOCK_ALL', enforcement: 'MODERATE' })).toBe(false);
  });
});

describe('checkReevaluation', () => {
  const box = { boxId: 'box_1', policy: 'LICENSE' as const, enforcement: 'MODERATE' as const };

  it('when modified and the avatar as it is now still breaks the policy, then 409 with the match; no match, or a license now, resolves it', () => {
    const err = refusal(() => checkReevaluation('modified', avatar(), box, match(), []));
    expect(err.code).toBe('INVALID_STATE');
    expect(err.details).toMatchObject({ match: { boxId: 'box_1', confidence: 0.97 } });
    expect(checkReevaluation('modified', avatar({ name: 'Robot' }), box, null, [])).toEqual({
      avatar: { name: 'Robot', description: null, imageUrl: null, commercial: false },
      reevaluation: { matched: false, confidence: null, parodyLikelihood: null },
    });
    expect(checkReevaluation('modified', avatar(), box, match(), ['commercial']).reevaluation).toMatchObject({
      matched: true,
    });
  });

  it('when parody, then only a box that admits parody and an avatar at or above 0.7 parody likelihood', () => {
    expect(refusal(() => checkReevaluation('parody', avatar(), box, match(), [])).message).toMatch(
      /not likely parody/,
    );
    expect(
      refusal(() =>
        checkReevaluation(
          'parody',
          avatar(),
          { ...box, enforcement: 'STRICT' },
          match({ parodyLikelihood: 0.9 }),
          [],
        ),
      ).message,
    ).toMatch(/admits no parody exception/);
    expect(refusal(() => checkReevaluation('parody', avatar(), box, null, [])).message).toMatch(
      /resolve it as modified/,
    );
    expect(
      checkReevaluation('parody', avatar(), box, match({ parodyLikelihood: 0.7 }), []).reevaluation,
    ).toEqual({ matched: true, confidence: 0.97, parodyLikelihood: 0.7 });
  });
});

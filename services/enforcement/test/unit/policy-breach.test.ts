import { judgeMatch } from '../../src/domain/policy-breach';

type Policy = 'BLOCK_ALL' | 'BLOCK_COMMERCIAL' | 'MONETIZE' | 'LICENSE' | 'TEAM' | 'OPEN';
const match = (
  policy: Policy,
  extra: Partial<{
    enforcement: 'STRICT' | 'MODERATE' | 'RELAXED';
    policyConfig: Record<string, unknown>;
    parodyLikelihood: number;
  }> = {},
) => ({
  policy,
  enforcement: extra.enforcement ?? ('MODERATE' as const),
  policyConfig: extra.policyConfig ?? {},
  parodyLikelihood: extra.parodyLikelihood ?? 0,
});
const avatar = { creatorId: 'creator-1', commercial: false, platformDomain: 'avatars.example.com' };

describe('judgeMatch (docs/spec/contracts.md §8)', () => {
  it('when BLOCK_ALL, then always a violation, licensed or parody alike', () => {
    expect(judgeMatch(match('BLOCK_ALL'), avatar, { tiers: ['personal'] })).toBe('violation');
    expect(judgeMatch(match('BLOCK_ALL', { parodyLikelihood: 0.95 }), avatar, { tiers: [] })).toBe(
      'violation',
    );
  });

  it('when LICENSE or MONETIZE, then a violation without an active license of this platform', () => {
    expect(judgeMatch(match('LICENSE'), avatar, { tiers: [] })).toBe('violation');
    expect(judgeMatch(match('LICENSE'), avatar, { tiers: ['personal'] })).toBe('licensed');
    expect(judgeMatch(match('MONETIZE'), avatar, { tiers: [] })).toBe('violation');
    expect(judgeMatch(match('MONETIZE'), avatar, { tiers: ['personal'] })).toBe('licensed');
  });

  it('when TEAM, then a violation unless the creator is authorized or the platform domain whitelisted', () => {
    const config = { authorizedAccounts: ['creator-1'], platformWhitelist: ['Team.Example.com'] };
    expect(judgeMatch(match('TEAM'), avatar, { tiers: [] })).toBe('violation');
    expect(judgeMatch(match('TEAM', { policyConfig: config }), avatar, { tiers: [] })).toBe('authorized');
    expect(
      judgeMatch(
        match('TEAM', { policyConfig: config }),
        { ...avatar, creatorId: 'x', platformDomain: 'team.example.com' },
        { tiers: [] },
      ),
    ).toBe('authorized');
    expect(
      judgeMatch(
        match('TEAM', { policyConfig: config }),
        { ...avatar, creatorId: 'x', platformDomain: null },
        { tiers: [] },
      ),
    ).toBe('violation');
  });

  it('when BLOCK_COMMERCIAL, then a violation only for commercial avatars', () => {
    expect(judgeMatch(match('BLOCK_COMMERCIAL'), avatar, { tiers: [] })).toBe('allowed');
    expect(judgeMatch(match('BLOCK_COMMERCIAL'), { ...avatar, commercial: true }, { tiers: [] })).toBe(
      'violation',
    );
  });

  it('when OPEN, then never a violation (monitoring only)', () => {
    expect(judgeMatch(match('OPEN'), { ...avatar, commercial: true }, { tiers: [] })).toBe('monitored');
  });

  it('when parody is likely (≥ 0.7) on a non-STRICT box that is not BLOCK_ALL, then parody, not a violation', () => {
    expect(judgeMatch(match('LICENSE', { parodyLikelihood: 0.7 }), avatar, { tiers: [] })).toBe('parody');
    expect(
      judgeMatch(match('TEAM', { parodyLikelihood: 0.9, enforcement: 'RELAXED' }), avatar, { tiers: [] }),
    ).toBe('parody');
    expect(judgeMatch(match('LICENSE', { parodyLikelihood: 0.69 }), avatar, { tiers: [] })).toBe('violation');
    expect(
      judgeMatch(match('LICENSE', { parodyLikelihood: 0.95, enforcement: 'STRICT' }), avatar, { tiers: [] }),
    ).toBe('violation');
  });
});

describe('judgeMatch: commercial use and the license tier (issue #15)', () => {
  it('when a commercial avatar holds only a personal license on a LICENSE box, then a violation; a commercial tier covers it', () => {
    const commercial = { ...avatar, commercial: true };
    expect(judgeMatch(match('LICENSE'), commercial, { tiers: ['personal'] })).toBe('violation');
    expect(judgeMatch(match('LICENSE'), commercial, { tiers: ['personal', 'commercial'] })).toBe('licensed');
    expect(judgeMatch(match('LICENSE'), avatar, { tiers: ['personal'] })).toBe('licensed');
  });

  it('when the description states commercial use, then it counts as commercial: not covered by personal, a violation on BLOCK_COMMERCIAL', () => {
    const selling = { ...avatar, description: 'Companion with paid plans, $9.99/month' };
    expect(judgeMatch(match('LICENSE'), selling, { tiers: ['personal'] })).toBe('violation');
    expect(judgeMatch(match('BLOCK_COMMERCIAL'), selling, { tiers: [] })).toBe('violation');
    const free = { ...avatar, description: 'Non-commercial fan tribute, free of charge' };
    expect(judgeMatch(match('BLOCK_COMMERCIAL'), free, { tiers: [] })).toBe('allowed');
  });
});

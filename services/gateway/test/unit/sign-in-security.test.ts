import { ConfigError, loadConfig } from '@svc/config';
import { totpCodeAt } from '../fixtures/otp';
import { gatewayConfigSchema } from '../../src/config';
import {
  base32Decode,
  base32Encode,
  hashRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  totpCode,
  totpStepOf,
} from '../../src/domain/second-factor';

const BASE = { INTERNAL_JWT_SECRET: 'unit-test-internal-jwt-secret-0123456789' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(gatewayConfigSchema, { ...BASE, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => p.key);
    throw err;
  }
  return [];
}

describe('TRUST_PROXY', () => {
  it('when unset, then no proxy is trusted (the socket address is the client)', () => {
    expect(loadConfig(gatewayConfigSchema, BASE).TRUST_PROXY).toBeUndefined();
  });

  it('when it names a hop count, loopback or CIDRs, then express gets them as such', () => {
    expect(loadConfig(gatewayConfigSchema, { ...BASE, TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(
      loadConfig(gatewayConfigSchema, { ...BASE, TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8' }).TRUST_PROXY,
    ).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8']);
  });

  it('when an entry is no address, CIDR or name, then the gateway refuses to start', () => {
    expect(problemsOf({ TRUST_PROXY: 'the ingress' })).toEqual(['TRUST_PROXY']);
  });
});

describe('ADMIN_TOTP_SECRET', () => {
  it('when it is not base32, then the gateway refuses to start', () => {
    expect(problemsOf({ ADMIN_TOTP_SECRET: 'not-base-32!' })).toEqual(['ADMIN_TOTP_SECRET']);
    expect(problemsOf({ ADMIN_TOTP_SECRET: 'jbsw y3dp ehpk 3pxp' })).toEqual([]);
  });
});

describe('second factor', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const now = new Date('2026-01-01T00:00:00Z');
  const code = (at: Date) => totpCodeAt(secret, at);

  it('when a code is current or one step off, then its step is accepted once', () => {
    const step = totpStepOf(secret, code(now), now, null);
    expect(step).toBe(Math.floor(now.getTime() / 30_000));
    expect(totpStepOf(secret, code(new Date(now.getTime() - 30_000)), now, null)).toBe((step ?? 0) - 1);
    expect(totpStepOf(secret, code(now), now, step)).toBeNull();
    expect(totpStepOf(secret, code(new Date(now.getTime() - 120_000)), now, null)).toBeNull();
    expect(totpStepOf(secret, 'abcdef', now, null)).toBeNull();
  });

  it('when RFC 6238 test vectors (SHA-1, truncated to 6 digits) are computed, then they match the RFC', () => {
    const key = Buffer.from('12345678901234567890');
    expect(base32Decode(base32Encode(key))).toEqual(key);
    // RFC 6238 Appendix B: 94287082, 07081804, 14050471, 89005924 (8 digits) at T = 59, 1111111109, 1111111111, 1234567890.
    expect([59, 1111111109, 1111111111, 1234567890].map((t) => totpCode(key, Math.floor(t / 30)))).toEqual([
      '287082',
      '081804',
      '050471',
      '005924',
    ]);
  });

  it('when a new secret is made, then otplib (an authenticator) computes the codes the gateway accepts', () => {
    const fresh = newTotpSecret();
    expect(fresh).toMatch(/^[A-Z2-7]{32}$/);
    expect(totpStepOf(fresh, totpCodeAt(fresh, now), now, null)).not.toBeNull();
  });

  it('when recovery codes are made, then there are ten distinct ones and their hash ignores dashes and spaces', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    const first = codes[0] ?? '';
    expect(hashRecoveryCode(first)).toBe(hashRecoveryCode(` ${first.replace('-', '')} `));
  });
});

import jwt from 'jsonwebtoken';
import { isAppError } from '@svc/errors';
import { signInternalToken, verifyInternalToken } from '../../src';
import { CLAIMS, SECRET } from './service.fixture';

const NOW = new Date('2026-03-01T12:00:00.000Z');

function unauthorizedMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isAppError(err) && err.code === 'UNAUTHORIZED' && err.status === 401) return err.message;
    throw err;
  }
  throw new Error('expected an UNAUTHORIZED AppError, got none');
}

describe('internal token', () => {
  it('when a token is signed and verified with the same secret, then the claims come back as they were', () => {
    const token = signInternalToken(SECRET, { ...CLAIMS, platformDomain: 'example.org' }, { now: NOW });

    expect(verifyInternalToken(SECRET, token, NOW)).toEqual({ ...CLAIMS, platformDomain: 'example.org' });
  });

  it('when signed, then it is HS256 from svc-gateway to svc-internal and lives 300 s by default', () => {
    const token = signInternalToken(SECRET, CLAIMS, { now: NOW });
    const decoded = jwt.decode(token, { complete: true });

    expect(decoded?.header.alg).toBe('HS256');
    expect(decoded?.payload).toMatchObject({
      iss: 'svc-gateway',
      aud: 'svc-internal',
      iat: NOW.getTime() / 1000,
      exp: NOW.getTime() / 1000 + 300,
    });
  });

  it('when verified before its ttl ends, then it passes, and after, then it is UNAUTHORIZED as expired', () => {
    const token = signInternalToken(SECRET, CLAIMS, { now: NOW, ttlSeconds: 60 });

    expect(verifyInternalToken(SECRET, token, new Date(NOW.getTime() + 59_000)).platformId).toBe(
      CLAIMS.platformId,
    );
    expect(
      unauthorizedMessage(() => verifyInternalToken(SECRET, token, new Date(NOW.getTime() + 120_000))),
    ).toBe('Internal token expired');
  });

  it('when the payload is tampered with, then it is UNAUTHORIZED', () => {
    const [header, , signature] = signInternalToken(SECRET, CLAIMS, { now: NOW }).split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...CLAIMS, plan: 'enterprise', iss: 'svc-gateway', aud: 'svc-internal', exp: 9e9 }),
    ).toString('base64url');

    expect(
      unauthorizedMessage(() => verifyInternalToken(SECRET, `${header}.${forged}.${signature}`, NOW)),
    ).toBe('Invalid internal token');
  });

  it('when signed with another secret, then it is UNAUTHORIZED', () => {
    const token = signInternalToken('another-secret', CLAIMS, { now: NOW });

    expect(() => verifyInternalToken(SECRET, token, NOW)).toThrow('Invalid internal token');
  });

  it('when the audience or issuer is not the internal one, then it is UNAUTHORIZED', () => {
    const iat = NOW.getTime() / 1000;
    const wrongAudience = jwt.sign({ ...CLAIMS, iat, exp: iat + 300 }, SECRET, {
      issuer: 'svc-gateway',
      audience: 'public-api',
    });
    const wrongIssuer = jwt.sign({ ...CLAIMS, iat, exp: iat + 300 }, SECRET, {
      issuer: 'someone-else',
      audience: 'svc-internal',
    });

    expect(unauthorizedMessage(() => verifyInternalToken(SECRET, wrongAudience, NOW))).toBe(
      'Invalid internal token',
    );
    expect(unauthorizedMessage(() => verifyInternalToken(SECRET, wrongIssuer, NOW))).toBe(
      'Invalid internal token',
    );
  });

  it('when a validly signed token lacks a claim or has a bad plan, then it is UNAUTHORIZED', () => {
    const iat = NOW.getTime() / 1000;
    const sign = (payload: object) =>
      jwt.sign({ ...payload, iat, exp: iat + 300 }, SECRET, {
        issuer: 'svc-gateway',
        audience: 'svc-internal',
      });
    const { keyId: _dropped, ...withoutKeyId } = CLAIMS;

    expect(unauthorizedMessage(() => verifyInternalToken(SECRET, sign(withoutKeyId), NOW))).toBe(
      'Internal token lacks required claims',
    );
    expect(
      unauthorizedMessage(() => verifyInternalToken(SECRET, sign({ ...CLAIMS, plan: 'platinum' }), NOW)),
    ).toBe('Internal token lacks required claims');
  });

  it('when the token says alg none, then it is UNAUTHORIZED', () => {
    const unsigned = jwt.sign({ ...CLAIMS, iss: 'svc-gateway', aud: 'svc-internal' }, '', {
      algorithm: 'none',
    });

    expect(unauthorizedMessage(() => verifyInternalToken(SECRET, unsigned, NOW))).toBe(
      'Invalid internal token',
    );
  });

  it('when the token is not a JWT at all, then it is UNAUTHORIZED', () => {
    expect(unauthorizedMessage(() => verifyInternalToken(SECRET, 'not-a-token', NOW))).toBe(
      'Invalid internal token',
    );
  });
});

describe('internal token verification cache', () => {
  const secret = 'cache-secret-of-a-reasonable-length-0123456789';
  const claims = {
    platformId: 'plat_c',
    environment: 'sandbox' as const,
    keyId: 'key_c',
    plan: 'basic' as const,
  };

  it('when a verified token is checked again after it expired, then it is refused', () => {
    const issued = new Date('2026-11-22T10:00:00Z');
    const token = signInternalToken(secret, claims, { ttlSeconds: 60, now: issued });
    expect(verifyInternalToken(secret, token, issued)).toEqual(claims);
    expect(() => verifyInternalToken(secret, token, new Date('2026-11-22T10:02:00Z'))).toThrow(/expired/i);
  });

  it('when a verified token is presented with another secret, then it is refused', () => {
    const token = signInternalToken(secret, claims);
    expect(verifyInternalToken(secret, token)).toEqual(claims);
    expect(() => verifyInternalToken(`${secret}-other`, token)).toThrow();
  });

  it('when a caller changes the returned claims, then the next verification is unaffected', () => {
    const token = signInternalToken(secret, claims);
    const first = verifyInternalToken(secret, token);
    first.platformId = 'tampered';
    expect(verifyInternalToken(secret, token).platformId).toBe('plat_c');
  });
});

import {
  bearerToken,
  environmentOfKey,
  generateApiKey,
  hashApiKey,
  sameHash,
  sameSecret,
} from '../../src/domain/api-key';

describe('API keys', () => {
  it('when a sandbox key is generated, then it is svc_test_ with 40 base62 characters', () => {
    const key = generateApiKey('sandbox');
    expect(key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(generateApiKey('production')).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
  });

  it('when two keys are generated, then they differ', () => {
    expect(generateApiKey('sandbox')).not.toBe(generateApiKey('sandbox'));
  });

  it('when a key is read, then its prefix gives its environment and anything else is not a key', () => {
    expect(environmentOfKey(generateApiKey('sandbox'))).toBe('sandbox');
    expect(environmentOfKey(generateApiKey('production'))).toBe('production');
    expect(environmentOfKey('svc_test_short')).toBeNull();
    expect(environmentOfKey('sk_test_0123456789012345678901234567890123')).toBeNull();
    expect(environmentOfKey(`svc_test_${'a'.repeat(31)}!`)).toBeNull();
  });

  it('when a key is hashed, then the hash is stable, hex and not the key', () => {
    const key = generateApiKey('sandbox');
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(9));
  });

  it('when hashes or secrets are compared, then only equal ones match', () => {
    const a = hashApiKey('a');
    expect(sameHash(a, hashApiKey('a'))).toBe(true);
    expect(sameHash(a, hashApiKey('b'))).toBe(false);
    expect(sameHash(a, 'abcd')).toBe(false);
    expect(sameSecret('operator-token-123', 'operator-token-123')).toBe(true);
    expect(sameSecret('operator-token-124', 'operator-token-123')).toBe(false);
    expect(sameSecret('', 'operator-token-123')).toBe(false);
  });

  it('when an Authorization header is read, then only a Bearer token is taken', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken('Bearer a b')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});

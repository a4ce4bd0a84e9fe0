import { Argon2PasswordHasher } from '../../src/adapters/argon2-password.hasher';

// Dashboard accounts (#20, ADR 0024): passwords are stored as argon2id hashes with OWASP's minimum
// cost (19 MiB, 2 passes, 1 lane), never in a form that a wrong password or a foreign hash passes.
describe('Argon2PasswordHasher', () => {
  const hasher = new Argon2PasswordHasher();

  it('when a password is hashed, then the stored form is argon2id with at least 19 MiB, 2 passes and a salt of its own', async () => {
    const stored = await hasher.hash('correct horse battery staple');
    const again = await hasher.hash('correct horse battery staple');
    const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(stored);
    expect(match).not.toBeNull();
    const [, memoryKiB, passes] = match ?? [];
    expect(Number(memoryKiB)).toBeGreaterThanOrEqual(19_456);
    expect(Number(passes)).toBeGreaterThanOrEqual(2);
    expect(stored).not.toContain('correct horse');
    expect(again).not.toBe(stored);
  });

  it('when a password is checked, then only the right one passes, and a stored value that is not an argon2 hash never does', async () => {
    const stored = await hasher.hash('correct horse battery staple');
    expect(await hasher.verify(stored, 'correct horse battery staple')).toBe(true);
    expect(await hasher.verify(stored, 'correct horse battery stapler')).toBe(false);
    expect(await hasher.verify('correct horse battery staple', 'correct horse battery staple')).toBe(false);
    expect(await hasher.verify('$argon2id$garbage', 'x')).toBe(false);
  });
});

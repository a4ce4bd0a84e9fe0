import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../domain/account-ports';

/**
 * argon2id through @node-rs/argon2 (prebuilt binaries in npm packages, no compiler at install).
 * The defaults are OWASP's minimum for argon2id: 19 MiB of memory, 2 passes, 1 lane.
 */
export class Argon2PasswordHasher implements PasswordHasher {
  hash(password: string): Promise<string> {
    // Algorithm.Argon2id: the package's enum is a const enum, which isolated modules cannot read.
    return hash(password, { algorithm: 2 });
  }

  async verify(stored: string, password: string): Promise<boolean> {
    if (!stored.startsWith('$argon2')) return false;
    try {
      return await verify(stored, password);
    } catch {
      return false;
    }
  }
}

import { importJWK, type JWK, type KeyLike } from 'jose';
import { CredentialVerificationError } from './credential-model';

// Public keys imported once each: node:crypto where there is one (faster), jose in a browser.

type NodeCrypto = typeof import('node:crypto');
type ImportedKey =
  | { node: { verify: NodeCrypto['verify']; key: import('node:crypto').KeyObject }; jose?: never }
  | { node?: never; jose: KeyLike | Uint8Array };

let nodeCrypto: NodeCrypto | null | undefined;

/**
 * node:crypto when running in Node (first checks through it: about a third more per second than
 * through jose), found without an import a browser bundle would trip on; null in a browser.
 */
function nodeCryptoIfAny(): NodeCrypto | null {
  if (nodeCrypto === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const found =
      typeof proc?.getBuiltinModule === 'function' ? proc.getBuiltinModule('node:crypto') : undefined;
    nodeCrypto = found === undefined ? null : (found as NodeCrypto);
  }
  return nodeCrypto;
}

// Imported once per public key (its `x`), so a check costs one signature verification;
// `readyKeys` holds the imported ones, read without waiting.
const importedKeys = new Map<string, Promise<ImportedKey>>();
export const readyKeys = new Map<string, ImportedKey>();
const MAX_KEYS = 256;

export function importedKey(jwk: JWK): Promise<ImportedKey> {
  const x = jwk.x as string;
  let key = importedKeys.get(x);
  if (key === undefined) {
    if (importedKeys.size >= MAX_KEYS) {
      importedKeys.clear();
      readyKeys.clear();
    }
    const publicJwk = { kty: 'OKP', crv: 'Ed25519', x };
    const nodeModule = nodeCryptoIfAny();
    key =
      nodeModule !== null
        ? Promise.resolve().then(() => ({
            node: {
              verify: nodeModule.verify,
              key: nodeModule.createPublicKey({ key: publicJwk, format: 'jwk' }),
            },
          }))
        : importJWK(publicJwk, 'EdDSA').then((imported) => ({ jose: imported }));
    key.then(
      (ready) => readyKeys.set(x, ready),
      () => importedKeys.delete(x),
    );
    importedKeys.set(x, key);
  }
  return key.catch(() => {
    throw new CredentialVerificationError(
      'unknown_key',
      `key ${String(jwk.kid)} is not a valid Ed25519 public key`,
    );
  });
}

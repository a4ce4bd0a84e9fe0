// The README's "Check a license credential" example, type-checked by `make check` and run by
// test/unit/readme-credential.test.ts (which also holds it equal to README.md, line for line).
import { checkLicenseCredential, createKeyCache } from '../src';

export async function checkAsTheReadmeDoes(credential: string): Promise<void> {
  // --- README ---
  const issuer = createKeyCache('https://api.example.com'); // the deployment's public base URL (`iss`)
  const { license, checked } = await checkLicenseCredential(credential, issuer);
  console.log(license.identityName, license.allowedUses, license.expiresAt.toISOString(), checked);
  // A refusal throws CredentialVerificationError: err.reason 'revoked', 'expired', 'bad_signature', …
  // --- README ---
}

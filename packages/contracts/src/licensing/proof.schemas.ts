import { z } from 'zod';
import { MAX_INT32 } from '../common/schemas';

// Proofs of a license: the verifiable credential, its status list and the issuer's keys.

export const licenseCredentialSchema = z
  .object({
    credential: z.string().meta({
      description:
        'Compact JWS (EdDSA, typ license+jwt, docs/adr/0029): claims iss, sub (the license id), iat, nbf, exp, boxId, claimId, identityName, platformId, tier, allowedUses, status {idx, uri, status_list {idx, uri}}',
      example: 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiIsInR5cCI6ImxpY2Vuc2Urand0In0.eyJzdWIiOiJsaWNfLi4uIn0.c2ln',
    }),
    expiresAt: z.iso
      .datetime()
      .meta({ description: "The credential's exp: the license's current period end" }),
  })
  .meta({ id: 'LicenseCredential' });

export const statusListIdParamSchema = z.object({
  id: z.coerce.number().int().min(1).max(MAX_INT32).meta({ description: 'The status list id (1)' }),
});

const publicJwkSchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

export const jwksSchema = z
  .object({
    keys: z.array(publicJwkSchema).meta({
      description:
        'The current signing key first, then each retired key until its last credential has expired',
    }),
  })
  .meta({ id: 'LicenseSigningKeys' });

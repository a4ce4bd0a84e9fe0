import { z } from 'zod';

// The vocabulary of protected identities that several services' contracts speak: the registry
// defines claims and boxes with it, detection answers checks in it, enforcement records violations
// in it. It lives here so that no service's contract imports another's (docs/adr/0018).

export const entityTypeSchema = z.enum(['INDIVIDUAL', 'ESTATE', 'CORPORATION', 'AGENCY']);
export const verificationTierSchema = z.enum(['GOLD', 'SILVER', 'BRONZE']);
export const policySchema = z.enum(['BLOCK_ALL', 'BLOCK_COMMERCIAL', 'MONETIZE', 'LICENSE', 'TEAM', 'OPEN']);
export type Policy = z.infer<typeof policySchema>;
export const enforcementSchema = z.enum(['STRICT', 'MODERATE', 'RELAXED']);

export const detectionLayerSchema = z
  .number()
  .int()
  .min(0)
  .max(5)
  .meta({
    description:
      '0 no match; 1 exact after normalisation (case, accents and transliteration, punctuation, spacing, ' +
      'honorifics, look-alike characters); 2 a registered variation; 3 fuzzy (typos, transpositions, missing ' +
      'or doubled letters); 4 phonetic (sounds alike); 5 the image matches a reference image',
  });

export const detectionClassificationSchema = z
  .enum(['NO_MATCH', 'EXACT_MATCH', 'VARIATION_MATCH', 'FUZZY_MATCH', 'PHONETIC_MATCH', 'IMAGE_MATCH'])
  .meta({ description: 'The layer, named: NO_MATCH (0) to IMAGE_MATCH (5)' });

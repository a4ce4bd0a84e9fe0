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
  .max(6)
  .meta({
    description:
      '0 no match; 1 exact after normalisation (case, accents and transliteration, punctuation, spacing, ' +
      'honorifics, look-alike characters); 2 a registered variation; 3 fuzzy (typos, transpositions, missing ' +
      'or doubled letters); 4 phonetic (sounds alike); 5 the image matches a reference image (the same ' +
      'picture, edits included); 6 a face in the picture is the same person as an enrolled face in another picture',
  });

/** What matched, named (docs/spec/contracts.md §15): a name, the same picture, or the same face in another picture. */
export const matchLayerSchema = z.enum(['name', 'image', 'face']).meta({
  description:
    'What matched: name (layers 1 to 4), image (the same picture, layer 5) or face (the same face in another picture, layer 6); the strongest when several did',
});
export type MatchLayer = z.infer<typeof matchLayerSchema>;

/** How alike the faces of a checked picture are to an enrolled face (docs/spec/contracts.md §15). */
export const likenessBandSchema = z.enum(['match', 'review', 'none', 'unavailable']).meta({
  description:
    'match: the same person as an enrolled face (the claim is matched); review: close, not sure (a match on a STRICT box, otherwise decided as no match: send it to human review); none: no enrolled face is close; unavailable: the faces could not be examined in time (names and fingerprints still decided)',
});
export type LikenessBand = z.infer<typeof likenessBandSchema>;

/** The face status of a claim's reference image (docs/spec/contracts.md §15). */
export const faceStatusSchema = z.enum(['pending', 'enrolled', 'no_face', 'several_faces', 'failed']).meta({
  description:
    'pending: not examined yet; enrolled: exactly one face, enrolled; no_face / several_faces: the picture cannot be enrolled (upload a picture with exactly one face); failed: the picture could not be fetched or read',
});
export type FaceStatus = z.infer<typeof faceStatusSchema>;

export const detectionClassificationSchema = z
  .enum([
    'NO_MATCH',
    'EXACT_MATCH',
    'VARIATION_MATCH',
    'FUZZY_MATCH',
    'PHONETIC_MATCH',
    'IMAGE_MATCH',
    'FACE_MATCH',
  ])
  .meta({ description: 'The layer, named: NO_MATCH (0) to FACE_MATCH (6)' });

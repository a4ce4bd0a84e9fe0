import { z } from 'zod';

// Where a decision sits in the transparency log (docs/spec/contracts.md §16, docs/adr/0030): licensing keeps the
// log; boxes, licenses, violations and appeals each carry the position of the newest decision about
// them once it is appended, so anyone holding the resource can ask for its inclusion proof.

export const base64Hash = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'a SHA-256 hash in base64 (44 characters)')
  .meta({ description: 'A SHA-256 hash, base64 (RFC 4648 §4)' });

/** Where a logged decision is: carried by the resource it concerns once appended. */
export const logEntrySchema = z
  .object({
    index: z.number().int().min(0).meta({ description: "The entry's leaf index in the log" }),
    leafHash: base64Hash,
  })
  .meta({ id: 'LogEntry', example: { index: 3, leafHash: 'Y5QaI6Wc792JreJKsfQCzW8TY9MpLM7x2Azpy2lFIiE=' } });

/** The `logEntry` field of a logged resource (absent until its first decision is appended). */
export const logEntryField = logEntrySchema.optional().meta({
  description:
    'The newest decision about this resource in the transparency log (docs/spec/contracts.md §16), once appended: ' +
    'ask /v1/svc/transparency/proofs/inclusion for its proof',
});

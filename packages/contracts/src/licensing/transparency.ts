import { z } from 'zod';
import { dataOf } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { base64Hash } from '../common/log-entry';
import {
  exampleConsistencyProof,
  exampleInclusionProof,
  exampleTransparencyEntry,
  exampleTreeHead,
} from './proof-examples';

// The transparency log of decisions (docs/spec/contracts.md §16, issue #31, docs/adr/0030): licensing keeps it
// and signs its tree heads with the keys of /.well-known/jwks.json. Hashes travel as standard
// base64 of their 32 bytes; proofs as arrays of them (RFC 9162 §2.1, leaf first).

const treeSize = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const treeHeadSchema = z
  .object({
    treeSize: z.number().int().min(0),
    rootHash: base64Hash,
    timestamp: z.string().meta({ description: 'When the log signed this size (ISO 8601)' }),
    signature: z.string().meta({
      description:
        'Compact JWS (EdDSA, kid of /.well-known/jwks.json) whose payload is {"rootHash","timestamp","treeSize"} as JSON with sorted keys',
    }),
  })
  .meta({ id: 'TreeHead' });

export const inclusionProofQuerySchema = z.object({
  leafHash: base64Hash,
  treeSize: treeSize.optional().meta({ description: 'Default: the size of the newest tree head' }),
});

export const inclusionProofSchema = z
  .object({
    leafIndex: z.number().int().min(0),
    treeSize: z.number().int().min(1),
    auditPath: z.array(base64Hash).meta({ description: 'RFC 9162 §2.1.3.1, leaf first' }),
  })
  .meta({ id: 'InclusionProof' });

export const consistencyProofQuerySchema = z.object({ first: treeSize, second: treeSize });

export const consistencyProofSchema = z
  .object({
    first: z.number().int().min(0),
    second: z.number().int().min(0),
    proof: z.array(base64Hash).meta({ description: 'RFC 9162 §2.1.4.1' }),
  })
  .meta({ id: 'ConsistencyProof' });

export const logEntryIndexParamSchema = z.object({ index: treeSize });

export const transparencyEntrySchema = z
  .object({
    index: z.number().int().min(0),
    leafHash: base64Hash,
    entry: z.string().meta({
      description: "The entry's bytes (canonical JSON); its leaf hash is SHA-256(0x00 || these bytes)",
    }),
    decision: z.record(z.string(), z.unknown()).meta({ description: 'The same entry, parsed' }),
    appendedAt: z.string(),
  })
  .meta({ id: 'TransparencyEntry' });

const proofs = { service: 'licensing' as const, tags: ['Proofs'] };

export const transparencyOperations = {
  getTreeHead: defineOperation({
    ...proofs,
    id: 'getTreeHead',
    auth: 'public',
    method: 'get',
    path: '/v1/svc/transparency/tree-head',
    summary: "The log's newest signed tree head",
    description:
      'Size, root hash, time and Ed25519 signature. A monitor keeps the last one it saw and asks for a consistency proof to the next (the SDK: checkTransparencyLog).',
    responses: {
      200: {
        description: 'The tree head',
        schema: dataOf(treeHeadSchema),
        example: { data: exampleTreeHead },
      },
    },
  }),
  getInclusionProof: defineOperation({
    ...proofs,
    id: 'getInclusionProof',
    auth: 'public',
    errors: ['NOT_FOUND'],
    method: 'get',
    path: '/v1/svc/transparency/proofs/inclusion',
    summary: 'The audit path of an entry in a tree of the log',
    request: { query: inclusionProofQuerySchema },
    responses: {
      200: {
        description: 'The proof',
        schema: dataOf(inclusionProofSchema),
        example: { data: exampleInclusionProof },
      },
    },
  }),
  getConsistencyProof: defineOperation({
    ...proofs,
    id: 'getConsistencyProof',
    auth: 'public',
    errors: ['VALIDATION_ERROR'],
    method: 'get',
    path: '/v1/svc/transparency/proofs/consistency',
    summary: 'The proof that a tree of the log is a prefix of a later one',
    request: { query: consistencyProofQuerySchema },
    responses: {
      200: {
        description: 'The proof',
        schema: dataOf(consistencyProofSchema),
        example: { data: exampleConsistencyProof },
      },
    },
  }),
  getTransparencyEntry: defineOperation({
    ...proofs,
    id: 'getTransparencyEntry',
    errors: ['NOT_FOUND'],
    method: 'get',
    path: '/v1/svc/transparency/entries/:index',
    summary: 'A logged decision, for the parties it concerns (anyone else: 404)',
    request: { params: logEntryIndexParamSchema },
    responses: {
      200: {
        description: 'The entry',
        schema: dataOf(transparencyEntrySchema),
        example: { data: exampleTransparencyEntry },
      },
    },
  }),
};

import type { Policy } from '@svc/contracts/common';
import { policyConfigSchemas } from '@svc/contracts/registry';
import { AppError, fieldProblems } from '@svc/errors';

export type Enforcement = 'STRICT' | 'MODERATE' | 'RELAXED';
export type { Policy };

export interface Box {
  id: string;
  claimId: string;
  ownerPlatformId: string;
  policy: Policy;
  enforcement: Enforcement;
  policyConfig: Record<string, unknown>;
  status: 'active';
  createdAt: Date;
  updatedAt: Date;
  /** The claim's name. */
  identityName: string;
  /** The newest decision about it in licensing's transparency log, once appended (docs/spec/contracts.md §16). */
  logEntry?: LogEntryRef | null;
}

/** Where a logged decision sits: its leaf index and its leaf hash (base64). */
export interface LogEntryRef {
  index: number;
  leafHash: string;
}

export const DEFAULT_ENFORCEMENT: Enforcement = 'MODERATE';
/** How long the initial scan of existing avatars is expected to take. */
export const INITIAL_SCAN_ESTIMATE_MS = 15 * 60 * 1000;

/**
 * Checks a configuration against the shape of `policy` (strict: unknown keys are refused) and
 * returns it as stored. A missing configuration is `{}`.
 */
export function checkPolicyConfig(
  policy: Policy,
  config: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const result = policyConfigSchemas[policy].safeParse(config ?? {});
  if (!result.success) {
    const fields = fieldProblems(result.error, 'policyConfig');
    throw new AppError('VALIDATION_ERROR', `Invalid policyConfig for ${policy}: ${fields[0]?.field ?? ''}`, {
      details: { fields },
    });
  }
  return result.data as Record<string, unknown>;
}

/** The share of revenue a box asks: MONETIZE's royaltyRate, else 0. */
export function royaltyRateOf(box: Pick<Box, 'policy' | 'policyConfig'>): number {
  if (box.policy !== 'MONETIZE') return 0;
  const rate = box.policyConfig.royaltyRate;
  return typeof rate === 'number' ? rate : 0;
}

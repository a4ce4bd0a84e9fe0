import type { CheckOutcome } from '../../domain/check-identity.use-case';
import type { BoxTerms, IndexedIdentity } from '../../domain/identity';

// Check results as the interface shows them: the reference family (camelCase, not wrapped in
// data) and the second family (snake_case, docs/spec/contracts.md §12).

/** The box's configuration, with MONETIZE's royaltyRate always present. */
function policyDetailsOf(box: BoxTerms): Record<string, unknown> {
  return box.policy === 'MONETIZE'
    ? { royaltyRate: box.royaltyRate, ...box.policyConfig }
    : { ...box.policyConfig };
}

function royaltyRateOf(box: BoxTerms | null | undefined): number | undefined {
  if (box?.policy !== 'MONETIZE') return undefined;
  const configured = box.policyConfig.royaltyRate;
  return typeof configured === 'number' ? configured : box.royaltyRate;
}

export function checkResultForm(outcome: CheckOutcome) {
  const identity = outcome.identity;
  const box = identity?.box ?? null;
  return {
    isBoxed: box !== null,
    isClaimed: identity !== null,
    confidence: outcome.confidence,
    matchedIdentity:
      identity === null
        ? null
        : {
            claimId: identity.claimId,
            boxId: box?.boxId ?? null,
            name: identity.name,
            variations: identity.variations,
            entityType: identity.entityType,
            verificationTier: identity.verificationTier,
          },
    ...(box === null
      ? {}
      : { policy: box.policy, enforcement: box.enforcement, policyDetails: policyDetailsOf(box) }),
    detection: {
      layer: outcome.layer,
      ...(outcome.matchLayer === null ? {} : { matchLayer: outcome.matchLayer }),
      classification: outcome.classification,
      parodyLikelihood: outcome.parodyLikelihood,
      matchedVariations: outcome.matchedVariations,
      imageMatchScore: outcome.imageMatchScore,
      bestScore: outcome.bestScore,
      ...(outcome.likeness === null ? {} : { likeness: outcome.likeness }),
      ...(outcome.otherMatches.length === 0 ? {} : { otherMatches: outcome.otherMatches }),
    },
    action: outcome.action,
  };
}

function itemError(outcome: CheckOutcome) {
  const error = outcome.imageError;
  return error === undefined ? {} : { error: { code: error.code, message: error.message } };
}

export function batchItemForm(outcome: CheckOutcome, submitted: { id?: string | undefined; name: string }) {
  const box = outcome.identity?.box ?? null;
  const royaltyRate = royaltyRateOf(box);
  return {
    ...(submitted.id === undefined ? {} : { id: submitted.id }),
    name: submitted.name,
    isBoxed: box !== null,
    isClaimed: outcome.identity !== null,
    confidence: outcome.confidence,
    ...(box === null ? {} : { policy: box.policy }),
    ...(royaltyRate === undefined ? {} : { royaltyRate }),
    action: outcome.action,
    ...(outcome.matchLayer === null ? {} : { matchLayer: outcome.matchLayer }),
    ...(outcome.likeness === null ? {} : { likeness: outcome.likeness }),
    ...itemError(outcome),
  };
}

type SecondFamilyStatus = 'UNCLAIMED' | 'CLAIMED' | 'BOXED';

function statusOf(identity: IndexedIdentity | null): SecondFamilyStatus {
  if (identity === null) return 'UNCLAIMED';
  return identity.box === null ? 'CLAIMED' : 'BOXED';
}

function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

export function secondFamilyCheckForm(outcome: CheckOutcome) {
  const identity = outcome.identity;
  const box = identity?.box ?? null;
  const royaltyRate = royaltyRateOf(box);
  const allowedUses = box === null ? undefined : stringsOf(box.policyConfig.allowedUses);
  const guidelines = box?.policyConfig.contentGuidelines;
  return {
    status: statusOf(identity),
    identity_id: identity?.claimId ?? null,
    ...(identity === null ? {} : { name: identity.name }),
    restrictions: {
      policy: box?.policy ?? null,
      action: outcome.action,
      ...(box === null ? {} : { enforcement: box.enforcement }),
      ...(royaltyRate === undefined ? {} : { royalty_rate: royaltyRate }),
      ...(allowedUses === undefined ? {} : { allowed_uses: allowedUses }),
      ...(typeof guidelines === 'string' ? { content_guidelines: guidelines } : {}),
    },
    confidence: outcome.confidence,
    match_layer: outcome.matchLayer,
    ...(outcome.likeness === null
      ? {}
      : { likeness: { score: outcome.likeness.score, band: outcome.likeness.band } }),
    detection: { layer: outcome.layer, classification: outcome.classification },
  };
}

export function secondFamilyBatchItemForm(outcome: CheckOutcome, submitted: { id?: string | undefined }) {
  return {
    ...(submitted.id === undefined ? {} : { id: submitted.id }),
    ...secondFamilyCheckForm(outcome),
    ...itemError(outcome),
  };
}

export function identityStatusForm(identity: IndexedIdentity) {
  const box = identity.box;
  return {
    identity_id: identity.claimId,
    name: identity.name,
    status: statusOf(identity),
    ...(box === null
      ? {}
      : {
          policy: box.policy,
          enforcement: box.enforcement,
          box_id: box.boxId,
          boxed_at: box.boxedAt.toISOString(),
        }),
    verified_at: identity.verifiedAt.toISOString(),
  };
}

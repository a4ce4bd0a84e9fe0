import { AppError, isAppError } from '@svc/errors';
import { decideAction, type Action } from './action';
import type { IndexedIdentity } from './identity';
import { parodyLikelihood } from './parody';
import type { Caller, DetectionContext, PictureAnalysis } from './ports';
import type { Candidate, Detection, CheckInput, OtherMatch, CheckOutcome } from './detection';
import { type ItemImageError, isItemImageError, checkedName, checkImageUrl } from './checked-input';
import { type CheckedPicture, detect } from './detect';
export * from './detection';
export { ITEM_IMAGE_ERROR_CODES, type ItemImageError, checkedName, checkImageUrl } from './checked-input';
export * from './detect';

/** Most restrictive first (docs/spec/contracts.md §15). */
const RESTRICTIVENESS: readonly Action[] = [
  'BLOCK',
  'REQUIRE_LICENSE',
  'VERIFY_COMMERCIAL',
  'REVIEW_PARODY',
  'TRACK_REVENUE',
  'ALLOW',
];

/**
 * When the name, the picture and a face point to different identities, the one whose action is
 * the most restrictive is the match (then the more confident); the others are `otherMatches`.
 */
function choose(
  detection: Detection,
  actionOf: (candidate: Candidate | null) => Action,
): { detection: Detection; action: Action; otherMatches: OtherMatch[] } {
  const ranked = detection.candidates
    .map((candidate, order) => ({ candidate, order, action: actionOf(candidate) }))
    .sort(
      (a, b) => RESTRICTIVENESS.indexOf(a.action) - RESTRICTIVENESS.indexOf(b.action) || a.order - b.order,
    );
  const first = ranked[0];
  if (first === undefined) return { detection, action: actionOf(null), otherMatches: [] };
  const others = ranked.slice(1).map(({ candidate }) => ({
    claimId: candidate.identity.claimId,
    boxId: candidate.identity.box?.boxId ?? null,
    layer: candidate.matchLayer,
    score: candidate.confidence,
  }));
  return {
    detection: { ...detection, ...first.candidate, candidates: ranked.map((r) => r.candidate) },
    action: first.action,
    otherMatches: others,
  };
}

/** The box's id when the caller's licenses decide the action (a LICENSE box), else null. */
function licensedBoxOf(identity: IndexedIdentity | null | undefined): string | null {
  const box = identity?.box;
  return box?.policy === 'LICENSE' ? box.boxId : null;
}

/**
 * Drops face evidence of faces deleted since this replica's index last read the projection:
 * a face that matched is confirmed in the database before the answer (docs/spec/contracts.md §15:
 * no check answered after a deletion's response matches it).
 */
export async function confirmFaces(
  ctx: DetectionContext,
  detection: Detection,
  again: () => Detection,
): Promise<Detection> {
  const sightings = detection.faceSightings;
  if (sightings.length === 0) return detection;
  const live = await ctx.faces.enrolledFaces(
    ctx.db,
    sightings.map((seen) => seen.imageId),
  );
  const gone = sightings.filter((seen) => !live.has(seen.imageId));
  if (gone.length === 0) return detection;
  // Some face is gone: this replica forgets those identities' faces and detects again.
  ctx.catalogue.forgetFaces([...new Set(gone.map((seen) => seen.claimId))]);
  return again();
}

/** Fingerprint and faces of a checked picture, under the caller's budget. */
async function pictureOf(
  ctx: DetectionContext,
  caller: Caller,
  url: string,
  timeoutMs: number,
  fetchTimeoutMs: number,
  totalMs?: number,
  whenBusy?: 'refuse' | 'without_faces',
): Promise<PictureAnalysis> {
  return ctx.images.analyse(url, {
    platformId: caller.platformId,
    timeoutMs,
    fetchTimeoutMs,
    ...(totalMs === undefined ? {} : { totalMs }),
    ...(whenBusy === undefined ? {} : { whenBusy }),
  });
}

function outcomeOf(
  caller: Caller,
  detection: Detection,
  input: CheckInput,
  tiersOf: (boxId: string) => readonly string[],
): CheckOutcome {
  const parody = parodyLikelihood(input.description, input.context);
  const actionOf = (candidate: Candidate | null): Action => {
    const identity = candidate?.identity ?? null;
    const boxId = licensedBoxOf(identity);
    return decideAction(identity, {
      context: input.context,
      parodyLikelihood: parody,
      platformDomain: caller.platformDomain,
      activeLicenseTiers: boxId === null ? [] : tiersOf(boxId),
    });
  };
  const chosen = choose(detection, actionOf);
  return {
    ...chosen.detection,
    parodyLikelihood: parody,
    action: chosen.action,
    otherMatches: chosen.otherMatches,
  };
}

function licensedBoxesOf(detections: readonly Detection[]): string[] {
  const boxes = new Set<string>();
  for (const detection of detections) {
    for (const candidate of detection.candidates) {
      const boxId = licensedBoxOf(candidate.identity);
      if (boxId !== null) boxes.add(boxId);
    }
  }
  return [...boxes];
}

/** POST /identity/check: is this a protected identity, and what must happen? */
export async function checkIdentity(
  ctx: DetectionContext,
  caller: Caller,
  input: CheckInput,
): Promise<CheckOutcome> {
  const name = checkedName(input.name);
  const imageUrl = input.imageUrl === undefined ? undefined : checkImageUrl(input.imageUrl);
  const picture =
    imageUrl === undefined
      ? null
      : await pictureOf(
          ctx,
          caller,
          imageUrl,
          ctx.faceTimeouts.checkMs,
          ctx.pictureFetchMs.checkMs,
          ctx.checkPictureBudgetMs,
        );
  const detectNow = () => detect(ctx, name, picture, undefined, undefined, input.description);
  const detection = await confirmFaces(ctx, detectNow(), detectNow);
  const boxes = licensedBoxesOf([detection]);
  const tiers =
    boxes.length === 0
      ? new Map<string, string[]>()
      : await ctx.licenses.activeLicenseTiersByBox(ctx.db, caller.platformId, boxes, ctx.clock.now());
  return outcomeOf(caller, detection, input, (boxId) => tiers.get(boxId) ?? []);
}

/** Pictures of one batch fetched at once. */
const BATCH_FETCH_CONCURRENCY = 16;

async function mapLimited<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * POST /identity/check/batch. Every name and URL is checked first (one bad item refuses the
 * batch, with its index); a picture that cannot be fetched only marks its own item, and one whose
 * faces were not examined in time (or past the platform's share) is `unavailable`.
 */
export async function checkIdentities(
  ctx: DetectionContext,
  caller: Caller,
  inputs: CheckInput[],
  fields: { name: string; imageUrl: string } = { name: 'name', imageUrl: 'imageUrl' },
): Promise<CheckOutcome[]> {
  const checked = inputs.map((input, index) => ({
    ...input,
    name: checkedName(input.name, `identities.${index}.${fields.name}`),
    imageUrl:
      input.imageUrl === undefined
        ? undefined
        : checkImageUrl(input.imageUrl, `identities.${index}.${fields.imageUrl}`),
  }));
  const started = performance.now();
  const detected = await mapLimited(checked, BATCH_FETCH_CONCURRENCY, async (input) => {
    let picture: CheckedPicture | null = null;
    let imageError: ItemImageError | undefined;
    if (input.imageUrl !== undefined) {
      const left = ctx.faceTimeouts.batchMs - (performance.now() - started);
      // Items wait for one of the batch's fetches: a late one gets what is left of the batch's time.
      const fetchMs = Math.min(ctx.pictureFetchMs.batchMs, left);
      try {
        if (fetchMs < 1) {
          throw new AppError('INVALID_IMAGE_URL', "The picture was not reached within the batch's time", {
            details: { reason: 'timeout' },
          });
        }
        // Past the platform's share of picture workers the item keeps its fingerprint when it is
        // cheap to take, not its faces; a huge picture is then not checked (its item says so).
        picture = await pictureOf(ctx, caller, input.imageUrl, left, fetchMs, left, 'without_faces');
      } catch (err) {
        // A refusal of the whole request (a platform over its share, a dependency away) is not an
        // item's: the batch answers it, as the single check would.
        if (!isAppError(err) || !isItemImageError(err)) throw err;
        imageError = err;
      }
    }
    const detectNow = () => detect(ctx, input.name, picture, undefined, undefined, input.description);
    const detection = await confirmFaces(ctx, detectNow(), detectNow);
    return { input, imageError, detection };
  });
  // The caller's licenses on every LICENSE box the batch met: one query, not one per item.
  const boxes = licensedBoxesOf(detected.map((d) => d.detection));
  const tiers =
    boxes.length === 0
      ? new Map<string, string[]>()
      : await ctx.licenses.activeLicenseTiersByBox(ctx.db, caller.platformId, boxes, ctx.clock.now());
  return detected.map(({ input, imageError, detection }) => {
    const outcome = outcomeOf(caller, detection, input, (boxId) => tiers.get(boxId) ?? []);
    return imageError === undefined ? outcome : { ...outcome, imageError };
  });
}

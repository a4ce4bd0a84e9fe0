// Over 300 lines on purpose (issue #33 allows ten such files, each with its reason): FaceIndex is one
// class whose search, filing and rebuild read the same private typed arrays (codes, slots, chunks,
// per-slot owner links) in their inner loops. Split into several classes or into functions handed a
// state object, those loops would read the arrays through one more indirection per access and the
// index's hidden class would change; what could leave without touching the loops has left
// (face-index-options.ts, face-index-parts.ts, face-index-tables.ts, face-index-training.ts).
import { FaceIdTable, OwnerKeyTable } from './face-index-tables';
import {
  nearestRow,
  nearestTwo,
  rowNorms,
  seededRandom,
  squaredDistance,
  trainLists,
} from './face-index-training';
import { DESCRIPTOR_LENGTH } from './types';
import {
  FACE_INDEX_FLAT_LIMIT,
  type FaceMatch,
  type FaceSearchOptions,
  type FaceIndexParts,
  type FaceIndexRebuildOptions,
  listsFor,
  defaultCells,
  defaultProbes,
} from './face-index-options';
import { f32, f64, u32, u8, bytesOf, grownU32, grownF32 } from './face-index-parts';
export * from './face-index-options';

const DIM = DESCRIPTOR_LENGTH;

/** The layout of FaceIndex.toParts(): a snapshot of another version is rebuilt, never loaded. */
export const FACE_INDEX_VERSION = 1;

/** Slots per chunk of float32 descriptors (4 MiB): the index grows a chunk at a time, never copying. */
const CHUNK_SHIFT = 13;
const CHUNK_SLOTS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_SLOTS - 1;
/** Room left in each list on a rebuild or load, so enrolments rarely move a list. */
const LIST_HEADROOM = 1.125;

/**
 * Keeps in best/scores (sorted, nearest first) the rows of [from, to) nearest to x among those
 * already there: the least |c|^2 - 2 x.c, which ranks as the distance does.
 */
function rankRows(
  x: Float32Array,
  rows: Float32Array,
  norms: Float32Array,
  from: number,
  to: number,
  best: Int32Array,
  scores: Float64Array,
): void {
  const keep = best.length;
  let worst = scores[keep - 1] ?? Number.POSITIVE_INFINITY;
  for (let c = from; c < to; c++) {
    const base = c * DIM;
    let a = 0;
    let b = 0;
    let e = 0;
    let f = 0;
    for (let d = 0; d < DIM; d += 4) {
      a += (x[d] ?? 0) * (rows[base + d] ?? 0);
      b += (x[d + 1] ?? 0) * (rows[base + d + 1] ?? 0);
      e += (x[d + 2] ?? 0) * (rows[base + d + 2] ?? 0);
      f += (x[d + 3] ?? 0) * (rows[base + d + 3] ?? 0);
    }
    const score = (norms[c] ?? 0) - 2 * (a + b + e + f);
    if (score >= worst) continue;
    let i = keep - 1;
    while (i > 0 && (scores[i - 1] ?? 0) > score) {
      scores[i] = scores[i - 1] ?? 0;
      best[i] = best[i - 1] ?? 0;
      i -= 1;
    }
    scores[i] = score;
    best[i] = c;
    worst = scores[keep - 1] ?? Number.POSITIVE_INFINITY;
  }
}

/**
 * Enrolled face descriptors, searched by distance: "which faces lie within r of this one, nearest
 * first". An inverted file: k-means lists (trained on a sample, ~2 sqrt(n) of them), each holding
 * its faces' descriptors as one byte per number (a uniform step per number, dimensions ordered by
 * spread) end to end. A search ranks the lists by their centroid, scans the nearest `probes` of
 * them byte by byte (stopping a face's sum early once it is out of reach), and measures the few
 * faces that may be within reach with their float32 descriptors, kept too: answers and distances
 * are exact for the faces in the probed lists, and a rebuild retrains from the exact numbers.
 *
 * Enrolment and deletion are live: `add` files a face in its nearest list, `removeFace` and
 * `removeOwner` take a face out of its list at once (the list's last face moves into its place)
 * and zero its numbers, so no later search can match it. Freed slots are reclaimed by `rebuild()`,
 * which also retrains the lists; call it when `rebuildAdvised` (the faces grew or shrank a lot).
 *
 * Everything lives in typed arrays, so a snapshot is the arrays as they are (`toParts`,
 * `fromParts`).
 */
export class FaceIndex {
  // Quantiser: code = round((x[order[p]] - low[p]) / step), for p = 0..DIM-1.
  private order: Uint8Array<ArrayBufferLike> = Uint8Array.from({ length: DIM }, (_, d) => d);
  private low: Float32Array<ArrayBufferLike> = new Float32Array(DIM).fill(-1);
  private step = 2 / 255;
  /** The largest distance between a face's numbers and its codes' (for a lossless prefilter). */
  private maxError = 0;

  // Lists.
  private lists = 1;
  // The coarse cells the lists were trained under (none with one list): a search ranks the cells,
  // then only the lists of the nearest cells, a quarter of the work of ranking every list.
  private groups = 0;
  private coarse: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private coarseNorms: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private groupStart: Uint32Array<ArrayBufferLike> = new Uint32Array(1);
  private centroids: Float32Array<ArrayBufferLike> = new Float32Array(DIM);
  private centroidNorms: Float32Array<ArrayBufferLike> = new Float32Array(1);
  private listCodes: Uint8Array<ArrayBufferLike>[] = [new Uint8Array(64 * DIM)];
  private listSlots: Uint32Array<ArrayBufferLike>[] = [new Uint32Array(64)];
  private listCount: Uint32Array<ArrayBufferLike> = new Uint32Array(1);
  private trainedSize = 0;

  // Slots: one per face since the last rebuild (a removed face's slot stays empty until then).
  private chunks: Float32Array<ArrayBufferLike>[] = [];
  private slotsUsed = 0;
  private faces = 0;
  private ids = new FaceIdTable();
  private owners = new OwnerKeyTable();
  /** owner + 1 per slot (0: empty). */
  private slotOwner: Uint32Array<ArrayBufferLike> = new Uint32Array(1024);
  /** The next slot + 1 of the same owner (a linked list per owner: no array per owner). */
  private nextOfOwner: Uint32Array<ArrayBufferLike> = new Uint32Array(1024);
  private slotList: Uint32Array<ArrayBufferLike> = new Uint32Array(1024);
  private slotPos: Uint32Array<ArrayBufferLike> = new Uint32Array(1024);
  private slotError: Float32Array<ArrayBufferLike> = new Float32Array(1024);
  /** First slot + 1 of each owner. */
  private ownerHead: Uint32Array<ArrayBufferLike> = new Uint32Array(256);

  // Search scratch.
  private readonly query = new Float64Array(DIM);
  private readonly codeScratch = new Uint8Array(DIM);
  private probeLists = new Int32Array(64);
  private probeScores = new Float64Array(64);
  private cellScratch = new Int32Array(16);
  private cellScores = new Float64Array(16);

  /** Faces enrolled. */
  get size(): number {
    return this.faces;
  }

  /** Owners with at least one face. */
  get ownerCount(): number {
    return this.owners.size;
  }

  /** Lists the faces are filed in (1: a flat scan). */
  get listTotal(): number {
    return this.lists;
  }

  /**
   * True when a rebuild would pay: past the flat limit with one list, the faces doubled or fell to a
   * quarter since the lists were trained, or a quarter of the slots are empty.
   */
  get rebuildAdvised(): boolean {
    const faces = this.faces;
    if (this.lists === 1) return faces >= FACE_INDEX_FLAT_LIMIT;
    if (faces > 2 * this.trainedSize || faces * 4 < this.trainedSize) return true;
    return this.slotsUsed - faces > Math.max(1024, this.slotsUsed / 4);
  }

  /** Bytes held by the index's arrays (room reserved for growth included). */
  bytes(): number {
    const buffers = new Set<ArrayBufferLike>();
    let total = 0;
    const count = (view: ArrayBufferView) => {
      if (buffers.has(view.buffer)) return;
      buffers.add(view.buffer);
      total += view.buffer.byteLength;
    };
    for (const codes of this.listCodes) count(codes);
    for (const slots of this.listSlots) count(slots);
    for (const chunk of this.chunks) count(chunk);
    for (const array of [
      this.centroids,
      this.centroidNorms,
      this.listCount,
      this.slotOwner,
      this.nextOfOwner,
      this.slotList,
      this.slotPos,
      this.slotError,
      this.ownerHead,
    ])
      count(array);
    return total + this.ids.bytes + this.owners.bytes;
  }

  /** Whether a face id is enrolled. */
  has(faceId: number): boolean {
    return this.ids.slotOf(faceId) >= 0;
  }

  /**
   * Enrols a face (a positive safe integer id) of an owner (a claim id); an id already enrolled is
   * replaced. Rejects a descriptor of another length or with a number that is not finite.
   */
  add(faceId: number, ownerKey: string, descriptor: Float32Array): void {
    if (!Number.isSafeInteger(faceId) || faceId < 1)
      throw new RangeError(`a face id must be a positive safe integer, got ${faceId}`);
    if (ownerKey.length === 0) throw new RangeError('an owner key must not be empty');
    if (descriptor.length !== DIM)
      throw new RangeError(`a descriptor has ${DIM} numbers, got ${descriptor.length}`);
    for (let d = 0; d < DIM; d++)
      if (!Number.isFinite(descriptor[d] ?? Number.NaN))
        throw new RangeError('a descriptor number is not finite');
    const existing = this.ids.slotOf(faceId);
    if (existing >= 0) this.detach(existing, true);
    let owner = this.owners.ownerOf(ownerKey);
    if (owner < 0) {
      owner = this.owners.add(ownerKey);
      if (owner >= this.ownerHead.length)
        this.ownerHead = grownU32(this.ownerHead, Math.max(owner + 1, this.ownerHead.length * 2));
    }
    const slot = this.slotsUsed;
    this.reserveSlots(slot + 1);
    this.slotsUsed += 1;
    const chunk = this.chunkFor(slot);
    chunk.set(descriptor, (slot & CHUNK_MASK) * DIM);
    this.ids.set(slot, faceId);
    this.slotOwner[slot] = owner + 1;
    this.nextOfOwner[slot] = this.ownerHead[owner] ?? 0;
    this.ownerHead[owner] = slot + 1;
    const list =
      this.lists === 1
        ? 0
        : nearestRow(chunk, (slot & CHUNK_MASK) * DIM, this.centroids, this.centroidNorms, 0, this.lists);
    this.file(slot, list);
    this.faces += 1;
  }

  /** Removes a face; its numbers are zeroed and no later search finds it. False when unknown. */
  removeFace(faceId: number): boolean {
    const slot = this.ids.slotOf(faceId);
    if (slot < 0) return false;
    this.detach(slot, true);
    return true;
  }

  /** Removes every face of an owner (a deleted or rejected claim); returns how many. */
  removeOwner(ownerKey: string): number {
    const owner = this.owners.ownerOf(ownerKey);
    if (owner < 0) return 0;
    let removed = 0;
    for (let next = this.ownerHead[owner] ?? 0; next !== 0;) {
      const slot = next - 1;
      next = this.nextOfOwner[slot] ?? 0;
      this.detach(slot, false);
      removed += 1;
    }
    this.ownerHead[owner] = 0;
    this.owners.remove(owner);
    return removed;
  }

  /**
   * The exact distances from a descriptor to every face of one owner (an identity's enrolled
   * pictures): the second stage that compares a candidate with all of its pictures at once.
   */
  distancesToOwner(descriptor: Float32Array, ownerKey: string): number[] {
    const owner = this.owners.ownerOf(ownerKey);
    if (owner < 0) return [];
    const distances: number[] = [];
    for (let next = this.ownerHead[owner] ?? 0; next !== 0;) {
      const slot = next - 1;
      next = this.nextOfOwner[slot] ?? 0;
      distances.push(Math.sqrt(this.exactSquared(descriptor, slot)));
    }
    return distances;
  }

  /**
   * Faces within `radius` of a descriptor, nearest first, at most `limit`. Exact for the faces in
   * the lists probed (all of them below the flat limit).
   */
  search(
    descriptor: Float32Array,
    radius: number,
    limit: number,
    options: FaceSearchOptions = {},
  ): FaceMatch[] {
    if (descriptor.length !== DIM)
      throw new RangeError(`a descriptor has ${DIM} numbers, got ${descriptor.length}`);
    if (this.faces === 0 || limit < 1 || !(radius >= 0)) return [];
    const probes = Math.max(1, Math.min(this.lists, options.probes ?? defaultProbes(this.lists)));
    const cells = Math.max(1, options.cells ?? defaultCells(this.groups));
    const probed = this.nearestLists(descriptor, probes, cells);
    // The query in code units (not rounded): a face's code distance is within its error of the truth.
    const q = this.query;
    const inv = 1 / this.step;
    for (let p = 0; p < DIM; p++) {
      const d = this.order[p] ?? 0;
      q[p] = ((descriptor[d] ?? 0) - (this.low[p] ?? 0)) * inv;
    }
    const reach = (radius + this.maxError) * inv;
    const bound = reach * reach;
    const radiusSquared = radius * radius;
    const foundSlots: number[] = [];
    const foundDistances: number[] = [];
    for (const list of probed) {
      const codes = this.listCodes[list] ?? new Uint8Array(0);
      const slots = this.listSlots[list] ?? new Uint32Array(0);
      const count = this.listCount[list] ?? 0;
      // The hot loop: squared distance in code units, a quarter of the numbers at a time (the
      // widest-spread first), dropping the face as soon as it is out of reach.
      for (let e = 0, base = 0; e < count; e++, base += DIM) {
        let s = 0;
        let d = 0;
        for (; d < 16; d++) {
          const t = (q[d] ?? 0) - (codes[base + d] ?? 0);
          s += t * t;
        }
        if (s > bound) continue;
        for (; d < 32; d++) {
          const t = (q[d] ?? 0) - (codes[base + d] ?? 0);
          s += t * t;
        }
        if (s > bound) continue;
        for (; d < 64; d++) {
          const t = (q[d] ?? 0) - (codes[base + d] ?? 0);
          s += t * t;
        }
        if (s > bound) continue;
        for (; d < DIM; d++) {
          const t = (q[d] ?? 0) - (codes[base + d] ?? 0);
          s += t * t;
        }
        if (s > bound) continue;
        const slot = slots[e] ?? 0;
        // Within reach of its own error: measure it exactly.
        const approx = Math.sqrt(s) * this.step;
        if (approx > radius + (this.slotError[slot] ?? 0)) continue;
        const exact = this.exactSquared(descriptor, slot);
        if (exact <= radiusSquared) {
          foundSlots.push(slot);
          foundDistances.push(Math.sqrt(exact));
        }
      }
    }
    // A claim's reference pictures are of one person: once one of an owner's faces is found, its
    // other faces are measured too (a few each), which finds those filed in lists not probed.
    const direct = foundSlots.length;
    if (direct > 0 && this.lists > probes && options.ownerFaces !== false) {
      const seen = new Set(foundSlots);
      for (let i = 0; i < direct; i++) {
        const owner = (this.slotOwner[foundSlots[i] ?? 0] ?? 0) - 1;
        for (let next = owner < 0 ? 0 : (this.ownerHead[owner] ?? 0); next !== 0;) {
          const slot = next - 1;
          next = this.nextOfOwner[slot] ?? 0;
          if (seen.has(slot)) continue;
          seen.add(slot);
          const exact = this.exactSquared(descriptor, slot);
          if (exact <= radiusSquared) {
            foundSlots.push(slot);
            foundDistances.push(Math.sqrt(exact));
          }
        }
      }
    }
    const order = foundSlots.map((_, i) => i);
    // Nearest first; equal distances by face id, so the order never depends on the filing.
    order.sort(
      (a, b) =>
        (foundDistances[a] ?? 0) - (foundDistances[b] ?? 0) ||
        this.ids.idOf(foundSlots[a] ?? 0) - this.ids.idOf(foundSlots[b] ?? 0),
    );
    return order.slice(0, limit).map((i) => {
      const slot = foundSlots[i] ?? 0;
      return {
        faceId: this.ids.idOf(slot),
        ownerKey: this.owners.keyOf((this.slotOwner[slot] ?? 1) - 1),
        distance: foundDistances[i] ?? 0,
      };
    });
  }

  /**
   * Retrains the quantiser and the lists on the faces enrolled now and files every face again,
   * reclaiming the slots and owner keys of removed faces. Takes seconds at 1M faces (sync).
   */
  rebuild(options: FaceIndexRebuildOptions = {}): void {
    this.compactSlots();
    const faces = this.faces;
    const lists = Math.max(1, Math.min(options.lists ?? listsFor(faces), Math.max(1, faces)));
    const random = seededRandom(options.seed ?? 0x5eed);
    // A sample: every face up to 32 per list (k-means needs a few dozen per centroid), at least 20k.
    const sampleSize = Math.min(faces, Math.max(FACE_INDEX_FLAT_LIMIT, lists * 32));
    const picks = new Uint32Array(faces);
    for (let i = 0; i < faces; i++) picks[i] = i;
    for (let i = 0; i < sampleSize; i++) {
      const j = i + Math.floor(random() * (faces - i));
      const t = picks[j] ?? 0;
      picks[j] = picks[i] ?? 0;
      picks[i] = t;
    }
    const sample = new Float32Array(sampleSize * DIM);
    for (let i = 0; i < sampleSize; i++) {
      const slot = picks[i] ?? 0;
      sample.set(this.vectorOf(slot), i * DIM);
    }
    this.trainQuantiser(sample, sampleSize);
    const rows = Uint32Array.from({ length: sampleSize }, (_, i) => i);
    if (lists === 1) {
      this.centroids = new Float32Array(DIM);
      this.lists = 1;
      this.groups = 0;
      this.coarse = new Float32Array(0);
      this.coarseNorms = new Float32Array(0);
      this.groupStart = new Uint32Array(1);
    } else {
      const trained = trainLists(sample, rows, lists, random, 6);
      const coarseNorms = rowNorms(trained.coarse, trained.groupStart.length - 1);
      const fineNorms = rowNorms(trained.fine, trained.fine.length / DIM);
      const { fine, groupStart } = trained;
      // File each face under its nearest coarse centroid's nearest fine one (search ranks all).
      for (let slot = 0; slot < faces; slot++) {
        const chunk = this.chunks[slot >>> CHUNK_SHIFT] ?? new Float32Array(0);
        const at = (slot & CHUNK_MASK) * DIM;
        const [first, second] = nearestTwo(chunk, at, trained.coarse, coarseNorms);
        const a = nearestRow(chunk, at, fine, fineNorms, groupStart[first] ?? 0, groupStart[first + 1] ?? 0);
        const b = nearestRow(
          chunk,
          at,
          fine,
          fineNorms,
          groupStart[second] ?? 0,
          groupStart[second + 1] ?? 0,
        );
        this.slotList[slot] =
          squaredDistance(chunk, at, fine, a) <= squaredDistance(chunk, at, fine, b) ? a : b;
      }
      this.centroids = trained.fine;
      this.lists = fineNorms.length;
      this.groups = coarseNorms.length;
      this.coarse = trained.coarse;
      this.coarseNorms = coarseNorms;
      this.groupStart = groupStart;
    }
    this.centroidNorms = rowNorms(this.centroids, this.lists);
    if (this.lists === 1) this.slotList.fill(0, 0, faces);
    this.trainedSize = faces;
    this.fileAll();
  }

  /**
   * The index's arrays, for a snapshot. The float32 descriptors are views (append-only between
   * rebuilds: a later enrolment writes past them); everything else is copied, so the parts stay
   * as they were at this instant while they are written out. Do not rebuild while writing.
   */
  toParts(): FaceIndexParts {
    const parts: FaceIndexParts = {};
    const used = this.slotsUsed;
    parts.meta = Uint32Array.from([
      FACE_INDEX_VERSION,
      DIM,
      this.lists,
      used,
      this.owners.capacity,
      this.trainedSize,
      this.groups,
    ]);
    parts.scalars = bytesOf(Float64Array.from([this.step, this.maxError]));
    parts['quantiser.low'] = bytesOf(this.low.slice());
    parts['quantiser.order'] = Buffer.from(this.order);
    parts.centroids = bytesOf(this.centroids.slice());
    parts.coarse = bytesOf(this.coarse.slice());
    parts['coarse.start'] = this.groupStart.slice();
    parts['lists.count'] = this.listCount.slice();
    let total = 0;
    for (let l = 0; l < this.lists; l++) total += this.listCount[l] ?? 0;
    const codes = Buffer.allocUnsafe(total * DIM);
    const slots = new Uint32Array(total);
    let at = 0;
    for (let l = 0; l < this.lists; l++) {
      const count = this.listCount[l] ?? 0;
      codes.set((this.listCodes[l] ?? new Uint8Array(0)).subarray(0, count * DIM), at * DIM);
      slots.set((this.listSlots[l] ?? new Uint32Array(0)).subarray(0, count), at);
      at += count;
    }
    parts['lists.codes'] = codes;
    parts['lists.slots'] = slots;
    parts['slots.faceId'] = bytesOf(this.ids.copyIds(used));
    parts['slots.owner'] = this.slotOwner.slice(0, used);
    parts['slots.error'] = bytesOf(this.slotError.slice(0, used));
    for (let c = 0; c * CHUNK_SLOTS < used; c++) {
      const chunk = this.chunks[c] ?? new Float32Array(0);
      parts[`vectors.${c}`] = bytesOf(chunk.subarray(0, Math.min(CHUNK_SLOTS, used - c * CHUNK_SLOTS) * DIM));
    }
    const owners = this.owners.parts();
    parts['owners.arena'] = owners.arena;
    parts['owners.start'] = owners.start;
    parts['owners.length'] = owners.length;
    return parts;
  }

  /**
   * An index from toParts() output (taking over the parts' memory: the descriptors are used in
   * place). Throws on another FACE_INDEX_VERSION or a damaged set: rebuild from the source then.
   */
  static fromParts(parts: FaceIndexParts): FaceIndex {
    const meta = parts.meta;
    if (!(meta instanceof Uint32Array) || meta.length < 7)
      throw new RangeError('face index snapshot: no meta part');
    const [version, dim, lists, used, ownerCount, trainedSize, groups] = Array.from(meta);
    if (version !== FACE_INDEX_VERSION || dim !== DIM)
      throw new RangeError(
        `face index snapshot: version ${version}/${dim}, expected ${FACE_INDEX_VERSION}/${DIM}`,
      );
    const index = new FaceIndex();
    const listTotal = lists ?? 1;
    const slotsUsed = used ?? 0;
    const scalars = f64(parts.scalars, 2, 'scalars');
    index.step = scalars[0] ?? index.step;
    index.maxError = scalars[1] ?? 0;
    index.low = f32(parts['quantiser.low'], DIM, 'quantiser.low');
    index.order = u8(parts['quantiser.order'], DIM, 'quantiser.order');
    index.lists = listTotal;
    index.centroids = f32(parts.centroids, listTotal * DIM, 'centroids');
    index.centroidNorms = rowNorms(index.centroids, listTotal);
    index.groups = groups ?? 0;
    index.coarse = f32(parts.coarse, index.groups * DIM, 'coarse');
    index.coarseNorms = rowNorms(index.coarse, index.groups);
    index.groupStart = u32(parts['coarse.start'], index.groups + 1, 'coarse.start');
    if ((index.groupStart[index.groups] ?? 0) !== (index.groups === 0 ? 0 : listTotal))
      throw new RangeError('face index snapshot: its coarse cells do not cover its lists');
    index.trainedSize = trainedSize ?? 0;
    const counts = u32(parts['lists.count'], listTotal, 'lists.count');
    let total = 0;
    for (const count of counts) total += count;
    const codes = u8(parts['lists.codes'], total * DIM, 'lists.codes');
    const listed = u32(parts['lists.slots'], total, 'lists.slots');
    index.owners = new OwnerKeyTable({
      arena: Buffer.from(u8(parts['owners.arena'], parts['owners.arena']?.byteLength ?? 0, 'owners.arena')),
      start: u32(parts['owners.start'], ownerCount ?? 0, 'owners.start').slice(),
      length: u32(parts['owners.length'], ownerCount ?? 0, 'owners.length').slice(),
    });
    index.ownerHead = new Uint32Array(Math.max(256, ownerCount ?? 0));
    index.ids = new FaceIdTable(f64(parts['slots.faceId'], slotsUsed, 'slots.faceId').slice(), slotsUsed);
    const capacity = Math.max(1024, Math.ceil(slotsUsed * LIST_HEADROOM));
    index.slotOwner = grownU32(u32(parts['slots.owner'], slotsUsed, 'slots.owner'), capacity);
    index.slotError = grownF32(f32(parts['slots.error'], slotsUsed, 'slots.error'), capacity);
    index.nextOfOwner = new Uint32Array(capacity);
    index.slotList = new Uint32Array(capacity);
    index.slotPos = new Uint32Array(capacity);
    index.slotsUsed = slotsUsed;
    for (let c = 0; c * CHUNK_SLOTS < slotsUsed; c++) {
      const slots = Math.min(CHUNK_SLOTS, slotsUsed - c * CHUNK_SLOTS);
      index.chunks.push(f32(parts[`vectors.${c}`], slots * DIM, `vectors.${c}`));
    }
    let faces = 0;
    for (let slot = slotsUsed - 1; slot >= 0; slot--) {
      const owner = index.slotOwner[slot] ?? 0;
      if (owner === 0) continue;
      faces += 1;
      index.nextOfOwner[slot] = index.ownerHead[owner - 1] ?? 0;
      index.ownerHead[owner - 1] = slot + 1;
    }
    if (faces !== index.ids.size || faces !== total)
      throw new RangeError('face index snapshot: its faces, ids and lists do not agree');
    index.faces = faces;
    let at = 0;
    for (let l = 0; l < listTotal; l++) {
      const count = counts[l] ?? 0;
      for (let e = 0; e < count; e++) index.slotList[listed[at + e] ?? 0] = l;
      at += count;
    }
    index.layOutLists(codes, listed);
    return index;
  }

  /** The `probes` lists whose centroids are nearest to the descriptor, nearest first. */
  private nearestLists(descriptor: Float32Array, probes: number, cells: number): Int32Array {
    const lists = this.lists;
    if (this.probeLists.length < probes) {
      this.probeLists = new Int32Array(probes);
      this.probeScores = new Float64Array(probes);
    }
    const best = this.probeLists.subarray(0, probes).fill(-1);
    if (lists <= probes) {
      for (let l = 0; l < lists; l++) best[l] = l;
      return best.subarray(0, lists);
    }
    const scores = this.probeScores.subarray(0, probes).fill(Number.POSITIVE_INFINITY);
    if (this.groups <= 1 || cells >= this.groups) {
      rankRows(descriptor, this.centroids, this.centroidNorms, 0, lists, best, scores);
      return best;
    }
    // The nearest cells first, then the lists under them (enough of them to fill the probes).
    if (this.cellScratch.length < cells) {
      this.cellScratch = new Int32Array(cells);
      this.cellScores = new Float64Array(cells);
    }
    const cellList = this.cellScratch.subarray(0, cells).fill(-1);
    const cellScores = this.cellScores.subarray(0, cells).fill(Number.POSITIVE_INFINITY);
    rankRows(descriptor, this.coarse, this.coarseNorms, 0, this.groups, cellList, cellScores);
    let covered = 0;
    for (const cell of cellList) covered += (this.groupStart[cell + 1] ?? 0) - (this.groupStart[cell] ?? 0);
    if (covered < probes) {
      rankRows(descriptor, this.centroids, this.centroidNorms, 0, lists, best, scores);
      return best;
    }
    for (const cell of cellList)
      rankRows(
        descriptor,
        this.centroids,
        this.centroidNorms,
        this.groupStart[cell] ?? 0,
        this.groupStart[cell + 1] ?? 0,
        best,
        scores,
      );
    return best;
  }

  private exactSquared(descriptor: Float32Array, slot: number): number {
    const chunk = this.chunks[slot >>> CHUNK_SHIFT] ?? new Float32Array(0);
    const base = (slot & CHUNK_MASK) * DIM;
    let sum = 0;
    for (let d = 0; d < DIM; d++) {
      const t = (descriptor[d] ?? 0) - (chunk[base + d] ?? 0);
      sum += t * t;
    }
    return sum;
  }

  private vectorOf(slot: number): Float32Array {
    const chunk = this.chunks[slot >>> CHUNK_SHIFT] ?? new Float32Array(DIM);
    const base = (slot & CHUNK_MASK) * DIM;
    return chunk.subarray(base, base + DIM);
  }

  /** The chunk of a slot, a fresh full one (or the loaded partial one copied into one) when needed. */
  private chunkFor(slot: number): Float32Array {
    const c = slot >>> CHUNK_SHIFT;
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      chunk = new Float32Array(CHUNK_SLOTS * DIM);
      this.chunks[c] = chunk;
    } else if (chunk.length < CHUNK_SLOTS * DIM) {
      const full = new Float32Array(CHUNK_SLOTS * DIM);
      full.set(chunk);
      chunk = full;
      this.chunks[c] = chunk;
    }
    return chunk;
  }

  private reserveSlots(needed: number): void {
    if (needed <= this.slotOwner.length) return;
    const size = Math.max(needed, Math.ceil(this.slotOwner.length * 1.5));
    this.slotOwner = grownU32(this.slotOwner, size);
    this.nextOfOwner = grownU32(this.nextOfOwner, size);
    this.slotList = grownU32(this.slotList, size);
    this.slotPos = grownU32(this.slotPos, size);
    this.slotError = grownF32(this.slotError, size);
  }

  /** Quantises a slot's descriptor into codeScratch; returns the distance to what the codes say. */
  private quantise(slot: number): number {
    const vector = this.vectorOf(slot);
    const inv = 1 / this.step;
    let error = 0;
    for (let p = 0; p < DIM; p++) {
      const x = vector[this.order[p] ?? 0] ?? 0;
      const low = this.low[p] ?? 0;
      const code = Math.min(255, Math.max(0, Math.round((x - low) * inv)));
      this.codeScratch[p] = code;
      const t = x - (low + code * this.step);
      error += t * t;
    }
    return Math.sqrt(error);
  }

  /** Appends a slot's codes to a list. */
  private file(slot: number, list: number): void {
    const error = this.quantise(slot);
    this.slotError[slot] = error;
    if (error > this.maxError) this.maxError = error;
    let count = this.listCount[list] ?? 0;
    let slots = this.listSlots[list] ?? new Uint32Array(0);
    let codes = this.listCodes[list] ?? new Uint8Array(0);
    if (count === slots.length) {
      // A full list moves to arrays of its own with room to grow (its old place is reclaimed on a rebuild).
      const room = Math.max(16, Math.ceil(count * 1.5));
      const grownSlots = new Uint32Array(room);
      grownSlots.set(slots.subarray(0, count));
      const grownCodes = new Uint8Array(room * DIM);
      grownCodes.set(codes.subarray(0, count * DIM));
      slots = grownSlots;
      codes = grownCodes;
      this.listSlots[list] = slots;
      this.listCodes[list] = codes;
    }
    codes.set(this.codeScratch, count * DIM);
    slots[count] = slot;
    this.slotList[slot] = list;
    this.slotPos[slot] = count;
    count += 1;
    this.listCount[list] = count;
  }

  /** Takes a face out of its list and its tables, zeroing its numbers. */
  private detach(slot: number, unlinkOwner: boolean): void {
    const list = this.slotList[slot] ?? 0;
    const pos = this.slotPos[slot] ?? 0;
    const codes = this.listCodes[list] ?? new Uint8Array(0);
    const slots = this.listSlots[list] ?? new Uint32Array(0);
    const last = (this.listCount[list] ?? 1) - 1;
    if (pos !== last) {
      const moved = slots[last] ?? 0;
      codes.copyWithin(pos * DIM, last * DIM, last * DIM + DIM);
      slots[pos] = moved;
      this.slotPos[moved] = pos;
    }
    codes.fill(0, last * DIM, last * DIM + DIM);
    slots[last] = 0;
    this.listCount[list] = last;
    this.vectorOf(slot).fill(0);
    const owner = (this.slotOwner[slot] ?? 0) - 1;
    if (unlinkOwner && owner >= 0) {
      const after = this.nextOfOwner[slot] ?? 0;
      if ((this.ownerHead[owner] ?? 0) === slot + 1) this.ownerHead[owner] = after;
      else
        for (
          let prev = (this.ownerHead[owner] ?? 0) - 1;
          prev >= 0;
          prev = (this.nextOfOwner[prev] ?? 0) - 1
        ) {
          if ((this.nextOfOwner[prev] ?? 0) === slot + 1) {
            this.nextOfOwner[prev] = after;
            break;
          }
        }
      if ((this.ownerHead[owner] ?? 0) === 0) this.owners.remove(owner);
    }
    this.nextOfOwner[slot] = 0;
    this.slotOwner[slot] = 0;
    this.slotError[slot] = 0;
    this.ids.delete(slot);
    this.faces -= 1;
  }

  /** Moves the faces to slots 0..faces-1 (in place: a face only moves down) and renews the tables. */
  private compactSlots(): void {
    const faceIds = this.ids.copyIds(this.slotsUsed);
    const oldOwners = this.owners;
    const owners = new OwnerKeyTable();
    const ownerMap = new Map<number, number>();
    let to = 0;
    for (let from = 0; from < this.slotsUsed; from++) {
      const owner = (this.slotOwner[from] ?? 0) - 1;
      if (owner < 0) continue;
      if (from !== to) {
        const source = this.vectorOf(from);
        this.chunkFor(to).set(source, (to & CHUNK_MASK) * DIM);
        faceIds[to] = faceIds[from] ?? 0;
      }
      let renumbered = ownerMap.get(owner);
      if (renumbered === undefined) {
        renumbered = owners.add(oldOwners.keyOf(owner));
        ownerMap.set(owner, renumbered);
      }
      this.slotOwner[to] = renumbered + 1;
      to += 1;
    }
    for (let slot = to; slot < this.slotsUsed; slot++) {
      this.vectorOf(slot).fill(0);
      this.slotOwner[slot] = 0;
      faceIds[slot] = 0;
    }
    this.chunks.length = Math.ceil(to / CHUNK_SLOTS);
    this.slotsUsed = to;
    this.faces = to;
    this.owners = owners;
    this.ids = new FaceIdTable(faceIds.length > 0 ? faceIds : new Float64Array(1024), to);
    this.ownerHead = new Uint32Array(Math.max(256, owners.capacity));
    this.nextOfOwner.fill(0);
    for (let slot = to - 1; slot >= 0; slot--) {
      const owner = (this.slotOwner[slot] ?? 1) - 1;
      this.nextOfOwner[slot] = this.ownerHead[owner] ?? 0;
      this.ownerHead[owner] = slot + 1;
    }
  }

  /** Per-number range and spread on a sample: the step covers the widest range, widest spread first. */
  private trainQuantiser(sample: Float32Array, count: number): void {
    const min = new Float64Array(DIM).fill(Number.POSITIVE_INFINITY);
    const max = new Float64Array(DIM).fill(Number.NEGATIVE_INFINITY);
    const sum = new Float64Array(DIM);
    const sumSquares = new Float64Array(DIM);
    for (let i = 0; i < count; i++) {
      for (let d = 0; d < DIM; d++) {
        const x = sample[i * DIM + d] ?? 0;
        if (x < (min[d] ?? 0)) min[d] = x;
        if (x > (max[d] ?? 0)) max[d] = x;
        sum[d] = (sum[d] ?? 0) + x;
        sumSquares[d] = (sumSquares[d] ?? 0) + x * x;
      }
    }
    if (count === 0) {
      min.fill(-1);
      max.fill(1);
    }
    const spread = Array.from({ length: DIM }, (_, d) => {
      const mean = (sum[d] ?? 0) / Math.max(1, count);
      return (sumSquares[d] ?? 0) / Math.max(1, count) - mean * mean;
    });
    const order = Array.from({ length: DIM }, (_, d) => d).sort(
      (a, b) => (spread[b] ?? 0) - (spread[a] ?? 0),
    );
    // A tenth of margin each side: faces enrolled later may reach a little further (beyond, they clamp,
    // and their error widens the prefilter rather than lose them).
    let widest = 0;
    for (let d = 0; d < DIM; d++) widest = Math.max(widest, (max[d] ?? 0) - (min[d] ?? 0));
    const margin = Math.max(widest, 1e-6) * 0.1;
    this.step = (widest + 2 * margin) / 255;
    this.order = Uint8Array.from(order);
    this.low = Float32Array.from(order, (d) => {
      const centre = ((min[d] ?? 0) + (max[d] ?? 0)) / 2;
      return centre - (this.step * 255) / 2;
    });
  }

  /** Files every slot in its list (slotList set) with room to grow, recomputing codes and errors. */
  private fileAll(): void {
    const counts = new Uint32Array(this.lists);
    for (let slot = 0; slot < this.slotsUsed; slot++) {
      const list = this.slotList[slot] ?? 0;
      counts[list] = (counts[list] ?? 0) + 1;
    }
    this.allocateLists(counts);
    this.maxError = 0;
    for (let slot = 0; slot < this.slotsUsed; slot++) this.file(slot, this.slotList[slot] ?? 0);
  }

  /** Loaded codes laid out with room to grow (one copy), and each slot's place. */
  private layOutLists(codes: Uint8Array, listed: Uint32Array): void {
    const counts = new Uint32Array(this.lists);
    for (let i = 0; i < listed.length; i++) {
      const list = this.slotList[listed[i] ?? 0] ?? 0;
      counts[list] = (counts[list] ?? 0) + 1;
    }
    this.allocateLists(counts);
    let at = 0;
    for (let l = 0; l < this.lists; l++) {
      const count = counts[l] ?? 0;
      (this.listCodes[l] ?? new Uint8Array(0)).set(codes.subarray(at * DIM, (at + count) * DIM));
      const slots = this.listSlots[l] ?? new Uint32Array(0);
      slots.set(listed.subarray(at, at + count));
      for (let e = 0; e < count; e++) this.slotPos[slots[e] ?? 0] = e;
      this.listCount[l] = count;
      at += count;
    }
  }

  /** One arena for all lists' codes and one for their slots, each list with a little room to grow. */
  private allocateLists(counts: Uint32Array): void {
    const rooms = Array.from(counts, (count) => Math.ceil(count * LIST_HEADROOM) + 4);
    const total = rooms.reduce((a, b) => a + b, 0);
    const codeArena = new Uint8Array(total * DIM);
    const slotArena = new Uint32Array(total);
    this.listCodes = [];
    this.listSlots = [];
    let at = 0;
    for (const room of rooms) {
      this.listCodes.push(codeArena.subarray(at * DIM, (at + room) * DIM));
      this.listSlots.push(slotArena.subarray(at, at + room));
      at += room;
    }
    this.listCount = new Uint32Array(this.lists);
  }
}

import { FACE_INDEX_VERSION, FaceIndex, type FaceIndexParts, type FaceMatch } from '../../src/face-index';

const DIM = 128;

/** mulberry32 + Box-Muller: the same synthetic faces on every run. */
function normalSource(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/**
 * People as clusters, as face-api's descriptors are: a centre per person (~1.0 between two people,
 * norms ~1) and pictures within ~0.25-0.55 of each other.
 */
function syntheticPeople(people: number, facesEach: number, seed: number) {
  const normal = normalSource(seed);
  const centres = new Float32Array(people * DIM);
  for (let i = 0; i < centres.length; i++) centres[i] = 0.0625 * normal() + (i % DIM < 8 ? 0.2 : 0);
  const picture = (person: number): Float32Array => {
    const out = new Float32Array(DIM);
    const spread = 0.017 + 0.015 * Math.abs(normal());
    for (let d = 0; d < DIM; d++) out[d] = (centres[person * DIM + d] ?? 0) + spread * normal();
    return out;
  };
  const faces: { faceId: number; ownerKey: string; descriptor: Float32Array }[] = [];
  for (let p = 0; p < people; p++)
    for (let f = 0; f < facesEach; f++)
      faces.push({ faceId: faces.length + 1, ownerKey: `claim_${p}`, descriptor: picture(p) });
  return { faces, picture };
}

function bruteForce(
  faces: { faceId: number; ownerKey: string; descriptor: Float32Array }[],
  query: Float32Array,
  radius: number,
): FaceMatch[] {
  return faces
    .map((face) => {
      let sum = 0;
      for (let d = 0; d < DIM; d++) sum += ((query[d] ?? 0) - (face.descriptor[d] ?? 0)) ** 2;
      return { faceId: face.faceId, ownerKey: face.ownerKey, distance: Math.sqrt(sum) };
    })
    .filter((match) => match.distance <= radius)
    .sort((a, b) => a.distance - b.distance);
}

/** The parts copied into fresh memory, as a snapshot file read back gives them. */
function throughAFile(parts: FaceIndexParts): FaceIndexParts {
  const copy: FaceIndexParts = {};
  for (const [name, part] of Object.entries(parts))
    copy[name] = part instanceof Uint32Array ? part.slice() : Buffer.from(part);
  return copy;
}

function enrol(index: FaceIndex, faces: { faceId: number; ownerKey: string; descriptor: Float32Array }[]) {
  for (const face of faces) index.add(face.faceId, face.ownerKey, face.descriptor);
}

describe('FaceIndex', () => {
  const { faces, picture } = syntheticPeople(400, 4, 7);

  it('when the index is empty, then a search finds nothing and a snapshot of it loads', () => {
    const index = new FaceIndex();
    expect(index.size).toBe(0);
    expect(index.search(picture(0), 0.6, 10)).toEqual([]);
    const loaded = FaceIndex.fromParts(throughAFile(index.toParts()));
    expect(loaded.size).toBe(0);
    expect(loaded.search(picture(0), 0.6, 10)).toEqual([]);
  });

  it('when faces are enrolled (one flat list), then a search answers exactly the brute force, nearest first', () => {
    const index = new FaceIndex();
    enrol(index, faces);
    expect(index.size).toBe(faces.length);
    expect(index.ownerCount).toBe(400);
    for (let person = 0; person < 400; person += 7) {
      const query = picture(person);
      const expected = bruteForce(faces, query, 0.5);
      const found = index.search(query, 0.5, 100);
      expect(found.map((m) => m.faceId)).toEqual(expected.map((m) => m.faceId));
      found.forEach((match, i) => expect(match.distance).toBeCloseTo(expected[i]?.distance ?? -1, 9));
      expect(found.every((m) => m.ownerKey === `claim_${person}`)).toBe(true);
    }
  });

  it('when trained into lists and every list is probed, then the answers are still exact', () => {
    const index = new FaceIndex();
    enrol(index, faces);
    index.rebuild({ lists: 16 });
    expect(index.listTotal).toBe(16);
    let found = 0;
    let expectedTotal = 0;
    for (let person = 0; person < 400; person += 3) {
      const query = picture(person);
      const expected = bruteForce(faces, query, 0.55).map((m) => m.faceId);
      expect(index.search(query, 0.55, 100, { probes: 16 }).map((m) => m.faceId)).toEqual(expected);
      const probed = new Set(index.search(query, 0.55, 100, { probes: 4 }).map((m) => m.faceId));
      found += expected.filter((id) => probed.has(id)).length;
      expectedTotal += expected.length;
    }
    // A quarter of the lists still finds most of the same person's faces (they cluster).
    expect(found / expectedTotal).toBeGreaterThan(0.9);
  });

  it('when one face of an owner is found, then its other faces within reach are found even in lists not probed', () => {
    const index = new FaceIndex();
    enrol(index, faces);
    index.rebuild({ lists: 16 });
    let bare = 0;
    let withOwners = 0;
    for (let person = 0; person < 400; person += 5) {
      const query = picture(person);
      const strict = index.search(query, 0.55, 100, { probes: 1, ownerFaces: false });
      const found = index.search(query, 0.55, 100, { probes: 1 });
      expect(found.map((m) => m.faceId)).toEqual(expect.arrayContaining(strict.map((m) => m.faceId)));
      const exact = new Map(bruteForce(faces, query, 0.55).map((m) => [m.faceId, m.distance]));
      for (const match of found) expect(match.distance).toBeCloseTo(exact.get(match.faceId) ?? -1, 9);
      bare += strict.length;
      withOwners += found.length;
    }
    expect(withOwners).toBeGreaterThan(bare);
  });

  it('when the faces pass the flat limit or double after training, then a rebuild is advised', () => {
    const index = new FaceIndex();
    enrol(index, faces.slice(0, 100));
    expect(index.rebuildAdvised).toBe(false);
    index.rebuild({ lists: 4 });
    expect(index.rebuildAdvised).toBe(false);
    enrol(index, faces.slice(100, 201));
    expect(index.rebuildAdvised).toBe(true);
  });

  it('when only the nearest coarse cells are ranked, then the search still finds the same person', () => {
    const index = new FaceIndex();
    enrol(index, faces);
    index.rebuild({ lists: 64 });
    let found = 0;
    let expectedTotal = 0;
    for (let person = 0; person < 400; person += 3) {
      const query = picture(person);
      const expected = bruteForce(faces, query, 0.5);
      // Too few cells to fill the probes: every list is ranked, and every list probed is exact.
      expect(index.search(query, 0.5, 100, { probes: 64, cells: 1 })).toEqual(
        index.search(query, 0.5, 100, { probes: 64 }),
      );
      const fast = index.search(query, 0.5, 100, { probes: 8, cells: 2 });
      const exact = new Map(expected.map((m) => [m.faceId, m.distance]));
      for (const match of fast) expect(match.distance).toBeCloseTo(exact.get(match.faceId) ?? -1, 9);
      found += fast.length;
      expectedTotal += expected.length;
    }
    expect(found / expectedTotal).toBeGreaterThan(0.9);
  });

  it('when a search has a limit, then it answers the nearest ones only', () => {
    const index = new FaceIndex();
    enrol(index, faces);
    const query = faces[0]?.descriptor ?? new Float32Array(DIM);
    const found = index.search(query, 2, 3);
    expect(found).toHaveLength(3);
    expect(found[0]).toEqual({ faceId: 1, ownerKey: 'claim_0', distance: 0 });
    expect(index.search(query, 0, 10).map((m) => m.faceId)).toEqual([1]);
  });

  it('when a face or an owner is removed, then the very next search no longer finds it', () => {
    const index = new FaceIndex();
    enrol(index, faces);
    index.rebuild({ lists: 8 });
    const first = faces[0]?.descriptor ?? new Float32Array(DIM);
    expect(index.search(first, 0.6, 10, { probes: 8 }).map((m) => m.faceId)).toContain(1);
    expect(index.removeFace(1)).toBe(true);
    expect(index.removeFace(1)).toBe(false);
    expect(index.has(1)).toBe(false);
    expect(index.search(first, 0.6, 10, { probes: 8 }).map((m) => m.faceId)).not.toContain(1);
    expect(index.removeOwner('claim_0')).toBe(3);
    expect(index.removeOwner('claim_0')).toBe(0);
    expect(index.search(first, 1, 100, { probes: 8 }).filter((m) => m.ownerKey === 'claim_0')).toEqual([]);
    expect(index.size).toBe(faces.length - 4);
    expect(index.ownerCount).toBe(399);
    // The other people are untouched, and the snapshot does not bring the removed back.
    const loaded = FaceIndex.fromParts(throughAFile(index.toParts()));
    expect(loaded.search(first, 1, 100, { probes: 8 }).filter((m) => m.ownerKey === 'claim_0')).toEqual([]);
    const other = faces[40]?.descriptor ?? new Float32Array(DIM);
    expect(loaded.search(other, 0.5, 10, { probes: 8 })[0]?.faceId).toBe(41);
  });

  it('when a face id is enrolled again, then its new descriptor replaces the old one', () => {
    const index = new FaceIndex();
    enrol(index, faces.slice(0, 40));
    const before = faces[0]?.descriptor ?? new Float32Array(DIM);
    index.add(1, 'claim_9', faces[39]?.descriptor ?? new Float32Array(DIM));
    expect(index.size).toBe(40);
    expect(index.search(before, 0.05, 10).map((m) => m.faceId)).not.toContain(1);
    expect(
      index.search(faces[39]?.descriptor ?? before, 0.01, 10).map((m) => [m.faceId, m.ownerKey]),
    ).toEqual([
      [1, 'claim_9'],
      [40, 'claim_9'],
    ]);
  });

  it('when faces are added after the last training, then searches find them', () => {
    const index = new FaceIndex();
    enrol(index, faces.slice(0, 800));
    index.rebuild({ lists: 16 });
    enrol(index, faces.slice(800));
    for (let person = 200; person < 400; person += 5) {
      const query = picture(person);
      const expected = bruteForce(faces, query, 0.5).map((m) => m.faceId);
      expect(index.search(query, 0.5, 100, { probes: 16 }).map((m) => m.faceId)).toEqual(expected);
    }
  });

  it('when a descriptor lies far outside what the quantiser was trained on, then it is still found exactly', () => {
    const index = new FaceIndex();
    enrol(index, faces.slice(0, 400));
    index.rebuild({ lists: 4 });
    const far = Float32Array.from(faces[0]?.descriptor ?? [], (x) => x * 4);
    index.add(9999, 'claim_far', far);
    const found = index.search(far, 0.1, 10, { probes: 4 });
    expect(found).toEqual([{ faceId: 9999, ownerKey: 'claim_far', distance: 0 }]);
  });

  it('when a snapshot is loaded, then it answers as the index did, and takes changes as it did', () => {
    // Past one chunk of descriptors (8,192), so the loaded last chunk must grow on the next add.
    const many = syntheticPeople(3_000, 3, 11);
    const index = new FaceIndex();
    enrol(index, many.faces);
    index.rebuild({ lists: 32 });
    index.removeOwner('claim_5');
    const loaded = FaceIndex.fromParts(throughAFile(index.toParts()));
    expect(loaded.size).toBe(index.size);
    expect(loaded.bytes()).toBeGreaterThan(many.faces.length * DIM * 4);
    for (let person = 0; person < 3_000; person += 37) {
      const query = many.picture(person);
      expect(loaded.search(query, 0.55, 50)).toEqual(index.search(query, 0.55, 50));
    }
    const added = many.picture(2_999);
    loaded.add(100_000, 'claim_new', added);
    index.add(100_000, 'claim_new', added);
    expect(loaded.search(added, 0.6, 50)).toEqual(index.search(added, 0.6, 50));
    expect(loaded.search(added, 0.6, 50)[0]?.faceId).toBe(100_000);
  });

  it('when the index is rebuilt after removals, then their slots are reclaimed and answers stay exact', () => {
    const index = new FaceIndex();
    enrol(index, faces);
    for (let person = 0; person < 400; person += 2) index.removeOwner(`claim_${person}`);
    const before = index.bytes();
    index.rebuild({ lists: 8 });
    expect(index.size).toBe(800);
    expect(index.rebuildAdvised).toBe(false);
    expect(index.bytes()).toBeLessThanOrEqual(before);
    const kept = faces.filter((f) => Number(f.ownerKey.slice(6)) % 2 === 1);
    for (let person = 1; person < 400; person += 10) {
      const query = picture(person);
      const expected = bruteForce(kept, query, 0.5).map((m) => m.faceId);
      expect(index.search(query, 0.5, 100, { probes: 8 }).map((m) => m.faceId)).toEqual(expected);
    }
  });

  it('when given a bad face id, descriptor or snapshot, then it refuses', () => {
    const index = new FaceIndex();
    const descriptor = faces[0]?.descriptor ?? new Float32Array(DIM);
    expect(() => index.add(0, 'claim_x', descriptor)).toThrow(RangeError);
    expect(() => index.add(1.5, 'claim_x', descriptor)).toThrow(RangeError);
    expect(() => index.add(1, 'claim_x', new Float32Array(64))).toThrow(RangeError);
    expect(() => index.add(1, 'claim_x', new Float32Array(DIM).fill(Number.NaN))).toThrow(RangeError);
    expect(() => index.add(1, '', descriptor)).toThrow(RangeError);
    expect(() => index.search(new Float32Array(3), 0.5, 10)).toThrow(RangeError);
    const parts = index.toParts();
    parts.meta = Uint32Array.from([FACE_INDEX_VERSION + 1, DIM, 1, 0, 0, 0, 0]);
    expect(() => FaceIndex.fromParts(parts)).toThrow(/version/);
  });
});

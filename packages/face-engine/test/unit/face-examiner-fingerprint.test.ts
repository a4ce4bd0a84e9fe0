import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fingerprintImage, imageSimilarity } from '@svc/image-fingerprint';
import { createFaceExaminer } from '../../src/face-examiner';

// The examiner takes a checked picture's fingerprint in its worker beside the faces, so that the
// fingerprint's hashing (JavaScript) stays off the event loop that answers checks.
describe('a face examination with its fingerprint', () => {
  const examiner = createFaceExaminer({ threads: 1 });
  afterAll(() => examiner.close());

  it('when the fingerprint is asked for, then it is the one the caller would have taken itself', async () => {
    const bytes = await readFile(
      path.join(__dirname, '../fixtures/faces/wh-obama-official-portrait-2012.jpg'),
    );
    const examined = await examiner.examine(bytes, { fingerprint: true });
    expect(examined.faces).toHaveLength(1);
    const own = await fingerprintImage(bytes);
    expect(examined.fingerprint?.words).toEqual(own.words);
    expect(imageSimilarity(own, examined.fingerprint ?? own)).toBe(1);
    expect((await examiner.examine(bytes)).fingerprint).toBeUndefined();
  }, 60_000);
});

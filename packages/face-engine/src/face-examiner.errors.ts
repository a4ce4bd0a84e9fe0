/** The picture was not examined within the caller's `timeoutMs` (the answer is `likeness.band: unavailable`). */
export class FaceExaminationTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the picture was not examined within ${timeoutMs} ms`);
    this.name = 'FaceExaminationTimeout';
  }
}

/** Every worker is busy and `maxQueue` pictures already wait: refused at once rather than queued. */
export class FaceExaminerBusy extends Error {
  constructor(
    readonly queued: number,
    readonly maxQueue: number,
  ) {
    super(`the face examiner is busy (${queued} pictures waiting, at most ${maxQueue})`);
    this.name = 'FaceExaminerBusy';
  }
}

import pg from 'pg';

// Whether the server is answering, judged from the answers (and errors) queries got.

/**
 * How recently an answer from the server shows the database serving. `/readyz` asks every few
 * seconds, under load too: a `SELECT 1` queued behind a busy pool waited past the probe's 1 s, and
 * every replica of a service left the load balancer at once with nothing down (#34). A query
 * answered within this window (and no lost connection since) answers the probe without one.
 */
export const ANSWER_EVIDENCE_MS = 2000;

/** What the server's answers (or their absence) say about it, for `ping`. */
export class ServingEvidence {
  private answeredAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;

  answered(): void {
    this.answeredAt = performance.now();
  }

  /** An error the server sent (a constraint, a syntax error) is an answer; a lost or refused connection is not. */
  settled(err: unknown): void {
    if (isServerAnswer(err)) this.answeredAt = performance.now();
    else this.failedAt = performance.now();
  }

  get fresh(): boolean {
    return this.answeredAt > this.failedAt && performance.now() - this.answeredAt < ANSWER_EVIDENCE_MS;
  }
}

// SQLSTATE classes that say the session or the server is unavailable rather than answering.
const UNAVAILABLE_CLASSES = ['08', '53', '57', '58'];

function isServerAnswer(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return false;
  const code = err.code ?? '';
  return code.length === 5 && !UNAVAILABLE_CLASSES.includes(code.slice(0, 2));
}

import type { EventEnvelope } from '@svc/contracts/common';
import type { DeadLetter, DeadLetterSummary } from './message-bus';
import type { KeptDeadLetter } from './dead-letter-store';

/** What a dead-letter listing shows of a kept letter. */
export function deadLetterSummary(queue: string, letter: KeptDeadLetter): DeadLetterSummary {
  const envelope = publicDeadLetter(letter).envelope as Partial<EventEnvelope> | null;
  return {
    queue,
    eventId: typeof envelope?.id === 'string' ? envelope.id : null,
    type: typeof envelope?.type === 'string' ? envelope.type : null,
    attempts: letter.attempts,
    reason: letter.reason,
    deadLetteredAt: letter.deadLetteredAt,
  };
}

/** A kept letter as the bus's API gives it: the envelope parsed when it parses. */
export function publicDeadLetter(letter: KeptDeadLetter): DeadLetter {
  let envelope: unknown;
  try {
    envelope = JSON.parse(letter.body);
  } catch {
    envelope = letter.body;
  }
  return {
    queue: letter.queue,
    envelope: envelope as EventEnvelope,
    attempts: letter.attempts,
    reason: letter.reason,
  };
}

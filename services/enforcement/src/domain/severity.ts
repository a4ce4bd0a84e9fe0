export type Severity = 'low' | 'medium' | 'high' | 'critical';

const ORDER: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

/** Below this detection confidence a violation is one step less severe. */
export const LOW_CONFIDENCE = 0.85;

/**
 * How serious a violation is (README, Severity): by the avatar's reach — critical from 10,000
 * users, high from 1,000, medium from 100, else low — one step lower when the detection is not
 * sure (confidence below 0.85), never below low.
 */
export function severityOf(userCount: number, confidence: number): Severity {
  let step = userCount >= 10_000 ? 3 : userCount >= 1_000 ? 2 : userCount >= 100 ? 1 : 0;
  if (confidence < LOW_CONFIDENCE) step = Math.max(0, step - 1);
  return ORDER[step] ?? 'low';
}

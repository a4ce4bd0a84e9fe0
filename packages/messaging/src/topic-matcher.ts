/**
 * AMQP topic matching, as RabbitMQ does it: words are separated by dots, `*` stands for exactly
 * one word and `#` for zero or more words.
 */
export function topicMatches(pattern: string, routingKey: string): boolean {
  return matchWords(pattern.split('.'), 0, routingKey.split('.'), 0, new Map());
}

function matchWords(
  pattern: string[],
  p: number,
  key: string[],
  k: number,
  memo: Map<number, boolean>,
): boolean {
  // Memoised on (p, k): patterns with several `#` would otherwise backtrack exponentially.
  const slot = p * (key.length + 1) + k;
  const known = memo.get(slot);
  if (known !== undefined) return known;
  let result: boolean;
  if (p === pattern.length) {
    result = k === key.length;
  } else {
    const word = pattern[p];
    if (word === '#') {
      result =
        matchWords(pattern, p + 1, key, k, memo) ||
        (k < key.length && matchWords(pattern, p, key, k + 1, memo));
    } else if (k === key.length) {
      result = false;
    } else {
      result = (word === '*' || word === key[k]) && matchWords(pattern, p + 1, key, k + 1, memo);
    }
  }
  memo.set(slot, result);
  return result;
}

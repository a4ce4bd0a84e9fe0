// The exact bytes that are hashed (an entry) and signed (a tree head).

/** The canonical bytes a tree head's signature covers: JSON with sorted keys, the root in base64. */
export function treeHeadPayload(head: { treeSize: number; rootHash: Uint8Array; timestamp: Date }): Buffer {
  return Buffer.from(
    JSON.stringify({
      rootHash: Buffer.from(head.rootHash).toString('base64'),
      timestamp: head.timestamp.toISOString(),
      treeSize: head.treeSize,
    }),
    'utf8',
  );
}

/** JSON with object keys sorted at every depth: the bytes a decision's entry is hashed from. */
export function canonicalJson(value: unknown): Buffer {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      return Object.fromEntries(
        Object.keys(v as Record<string, unknown>)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return Buffer.from(JSON.stringify(sort(value)), 'utf8');
}

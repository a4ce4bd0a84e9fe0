// Column values as either engine returns them (pg or PGlite): one conversion for every repository.

/** A timestamptz as returned by either engine (pg gives a Date, a JSON path may give a string). */
export function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** A count, bigint or double as returned by either engine (string, bigint or number). */
export function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return Number(value);
}

export function toNumberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** A jsonb value: pg parses it; be tolerant of a string. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function isoOrNull(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

import type { Queryable } from './database';

/** One page of a list and the count of all its matches (docs/spec/contracts.md §7: `meta.total`). */
export interface PageSpec {
  /** The selected columns, e.g. `c.*, b.id AS box_id`. */
  select: string;
  /** Tables and joins, e.g. `boxes b JOIN claims c ON c.id = b.claim_id`. */
  from: string;
  /** Fixed conditions, written with `$1…` placeholders of `params`. */
  where?: string[];
  params?: unknown[];
  /** Equality filters added as `column = $n`; an undefined value means "no filter". */
  equals?: [column: string, value: unknown][];
  orderBy: string;
  limit: number;
  offset: number;
}

/** Runs the count and the page with the same FROM and WHERE, so the two can never disagree. */
export async function selectPage<R extends object>(
  q: Queryable,
  spec: PageSpec,
): Promise<{ rows: R[]; total: number }> {
  const params = [...(spec.params ?? [])];
  const where = [...(spec.where ?? [])];
  for (const [column, value] of spec.equals ?? []) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  const condition = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  const count = await q.query<{ total: unknown }>(
    `SELECT count(*) AS total FROM ${spec.from} ${condition}`,
    params,
  );
  const page = await q.query<R>(
    `SELECT ${spec.select} FROM ${spec.from} ${condition} ORDER BY ${spec.orderBy}
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, spec.limit, spec.offset],
  );
  return { rows: page.rows, total: Number(count.rows[0]?.total ?? 0) };
}

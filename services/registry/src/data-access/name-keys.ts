import { sql, type RawBuilder } from '@svc/storage';
import type { Claim } from '../domain/claim';

// How claims' names are stored for finding conflicts between accounts (docs/adr/0033).

/**
 * The form in which two names are the same identity for a conflict between accounts (issue #32):
 * case, spacing, dots, quotes and hyphens aside ("J.K. Rowling" is "jk rowling"). Migration 0012
 * applies the same rule in SQL to the claims written before it.
 */
export function nameKeyOf(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[.'’‘"]/g, '')
    .replace(/[-_,\s]+/g, ' ')
    .trim();
}

/** Every key of a claim: its name's and each variation's. */
export function nameKeysOf(claim: Pick<Claim, 'name' | 'variations'>): string[] {
  return [...new Set([claim.name, ...claim.variations].map(nameKeyOf))];
}

/**
 * A condition: one of the claim's name keys (the column `column`, e.g. `c.name_keys`) contains the
 * search, compared in the same form. LIKE's wildcards in the search are taken literally.
 */
export function nameKeysContain(column: string, search: string): RawBuilder<boolean> {
  const pattern = `%${nameKeyOf(search).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`EXISTS (SELECT 1 FROM unnest(${sql.ref(column)}) AS k(key) WHERE k.key LIKE ${pattern})`;
}

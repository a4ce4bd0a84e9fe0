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

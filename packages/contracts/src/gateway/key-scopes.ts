import { z } from 'zod';

// Restricted keys (#32): a key issued with a scope reaches only the operations the scope allows;
// the gateway refuses the others with 403 FORBIDDEN before the owning service sees them.

export const keyScopeSchema = z.enum(['full', 'read_only', 'check_only']).meta({
  id: 'KeyScope',
  description:
    '`full`: every operation; `read_only`: GET operations only; `check_only`: the identity checks (single and batch, both path families) and a check’s status only',
});

export type KeyScope = z.infer<typeof keyScopeSchema>;

/** The operations a check-only key may call: a platform's avatar pipeline needs nothing else. */
export const CHECK_OPERATION_IDS: ReadonlySet<string> = new Set([
  'checkIdentity',
  'checkIdentityBatch',
  'secondFamilyCheckIdentity',
  'secondFamilyCheckIdentityBatch',
  'identityStatus',
]);

/** Whether a key of `scope` may call the operation (`method` as on the wire, any case). */
export function scopeAllows(scope: KeyScope, operation: { id: string; method: string }): boolean {
  switch (scope) {
    case 'full':
      return true;
    case 'read_only': {
      const method = operation.method.toUpperCase();
      return method === 'GET' || method === 'HEAD';
    }
    case 'check_only':
      return CHECK_OPERATION_IDS.has(operation.id);
  }
}

/** The scopes that allow the operation, as the reference lists them. */
export function scopesAllowing(operation: { id: string; method: string }): KeyScope[] {
  return keyScopeSchema.options.filter((scope) => scopeAllows(scope, operation));
}

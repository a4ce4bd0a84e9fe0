// A service answers an operation with the body its contract declares: the status must be one of
// the operation's responses and the body must type-check against that response's schema, so a
// presenter that drifts from the public shape fails `make check` instead of a client.
import type { Response } from 'express';
import type { z } from 'zod';

/** What `respond` reads of an operation (@svc/contracts' `Operation`, without depending on it). */
export interface RespondableOperation {
  responses: Record<number, { description: string; schema?: z.ZodType }>;
}

/** The statuses an operation declares a success answer for. */
export type DeclaredStatus<O extends RespondableOperation> = keyof O['responses'] & number;

/**
 * What the answer of `operation` with `status` may carry: what its schema's `parse` accepts (a
 * client reads the JSON with the same schema). A status declared without a schema: no body.
 */
export type ResponseBody<
  O extends RespondableOperation,
  S extends DeclaredStatus<O>,
> = O['responses'][S] extends {
  schema: infer Schema extends z.ZodType;
}
  ? z.input<Schema>
  : undefined;

/** Answers `operation` with `status` and `body` as JSON (type-checked against the contract). */
export function respond<O extends RespondableOperation, S extends DeclaredStatus<O>>(
  res: Response,
  _operation: O,
  status: S,
  body: ResponseBody<O, S>,
): void {
  res.status(status).json(body);
}

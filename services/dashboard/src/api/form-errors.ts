import { ApiError } from './http';

/** The API's message for one field of a form (`fields` as the API names them, e.g. `policyConfig.royaltyRate`). */
export function fieldError(error: unknown, ...names: string[]): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  for (const name of names) {
    const message = error.fields[name];
    if (message !== undefined) return message;
  }
  return undefined;
}

/** The form-level message: shown when no field of the form carries the error. */
export function formError(error: unknown, fieldsOfForm: string[]): string | undefined {
  if (error === null || error === undefined) return undefined;
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : 'Something went wrong';
  const onAField = fieldsOfForm.some((name) => error.fields[name] !== undefined);
  return onAField ? undefined : error.message;
}

// The dashboard's one reading of the wall clock (docs/spec/style.md rule 10 asks the services for
// an injected clock; in the browser the clock is the visitor's own, and this is where it is read).

/** Milliseconds since the epoch, as the visitor's browser has it. */
export function nowMs(): number {
  // eslint-disable-next-line no-restricted-syntax -- the browser's clock, read here only
  return Date.now();
}

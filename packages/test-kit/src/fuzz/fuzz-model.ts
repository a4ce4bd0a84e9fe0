// What the fuzzer reads of a served document and what it sends: operations, senders, requests, ids.

export type JsonObject = Record<string, unknown>;

/** One operation of the served document, as the fuzzer reads it. */
export interface FuzzOperation {
  id: string;
  method: string;
  /** OpenAPI path, `{param}` segments. */
  path: string;
  operator: boolean;
  pathParams: string[];
  query: { name: string; schema: JsonObject }[];
  body?: JsonObject;
}

/** Who sends a request: the attacking platform's key, the operator token, or something broken. */
export type Sender = 'key' | 'admin' | 'none' | 'garbage';

/** One generated request, raw enough to carry what fetch would otherwise clean up. */
export interface FuzzRequest {
  operationId: string;
  /** What was broken, for the report. */
  label: string;
  method: string;
  /** Path and query, already encoded (or deliberately mis-encoded). */
  url: string;
  sender: Sender;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** Ids the generator may put where an id goes (real resources make deeper code run). */
export interface IdPool {
  key: string[];
  admin: string[];
}

/** A JSON answer as tests read it. */
export interface JsonReply {
  status: number;
  // Tests read response bodies as loosely typed JSON.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers;
}

/** A request body sent as it is (malformed JSON, a body too large), not JSON-encoded. */
export class RawBody {
  constructor(
    readonly text: string,
    readonly contentType = 'application/json',
  ) {}
}

/**
 * One HTTP call with an optional bearer token, JSON in and out (text kept when not JSON); a
 * `RawBody` goes out unencoded.
 */
export async function requestJson(
  baseUrl: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const raw = body instanceof RawBody ? body : undefined;
  const response = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': raw?.contentType ?? 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: raw?.text ?? JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text === '' ? undefined : text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

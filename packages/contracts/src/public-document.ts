import { allOperations } from './catalogue';
import { buildOpenApiDocument } from './openapi';

/**
 * The API's version: `info.version` of the OpenAPI document. It is this package's version (the
 * document is built from it) and the SDK's (packages/sdk is generated from the document); a unit
 * test and `make openapi-check` hold the three equal.
 */
export const API_VERSION = '1.0.0';

/**
 * The document the gateway serves at `GET /v1/svc/openapi.json`: every declared operation and
 * every public webhook event. `make openapi` writes the same document to packages/sdk/openapi.json.
 */
export function publicOpenApiDocument(): Record<string, unknown> {
  return buildOpenApiDocument(allOperations, { version: API_VERSION });
}

// Draws the API reference at /docs from the OpenAPI document the gateway serves, with Redoc's
// standalone bundle served beside this file (issue #32): nothing is fetched from another host.
/* global Redoc */
Redoc.init(
  '/v1/svc/openapi.json',
  {
    expandResponses: '200,201,202',
    jsonSampleExpandLevel: 3,
    sortTagsAlphabetically: false,
    hideHostname: true,
    theme: { colors: { primary: { main: '#1d4ed8' } } },
  },
  document.getElementById('reference'),
);

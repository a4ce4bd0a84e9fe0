// Examples of the proof operations (docs/spec/contracts.md §16) for the OpenAPI document: one key, one
// license credential, its status list, and a log of seven entries with its signed head and proofs,
// generated together so that each verifies against the others (packages/contracts/test checks it).

export const exampleIssuer = 'https://api.example.com';

export const exampleJwks = {
  keys: [
    {
      kty: 'OKP',
      crv: 'Ed25519',
      x: '3Fy5adfANhqk7egjMRaO8kB1jY5mOD7NGmxsMPqgqf0',
      kid: 'MnaPTPLTdvNkzlIUypnAy6T8IIilsAz-wO4a8w3SA6A',
      alg: 'EdDSA',
      use: 'sig',
    },
  ],
};

export const exampleCredential = {
  credential:
    'eyJhbGciOiJFZERTQSIsImtpZCI6Ik1uYVBUUExUZHZOa3psSVV5cG5BeTZUOElJaWxzQXotd080YTh3M1NBNkEiLCJ0eXAiOiJsaWNlbnNlK2p3dCJ9.eyJib3hJZCI6ImJveF83WXEyTG05WGM0VHoxUHdCOHZLM2ROIiwiY2xhaW1JZCI6ImNsYWltXzNrVDltUXgyTHc3TmJWNGhKZDFzWnAiLCJpZGVudGl0eU5hbWUiOiJBZGEgTG92ZWxhY2UiLCJwbGF0Zm9ybUlkIjoicGxhdF81UnQ4S3AyVng5TXE0THc3TmIxSGMzIiwidGllciI6ImNvbW1lcmNpYWwiLCJhbGxvd2VkVXNlcyI6WyJwZXJzb25hbCIsImNyZWF0b3JfY29udGVudCIsImNvbW1lcmNpYWwiXSwic3RhdHVzIjp7ImlkeCI6NDIsInVyaSI6Imh0dHBzOi8vYXBpLmV4YW1wbGUuY29tL3YxL3N2Yy9zdGF0dXMtbGlzdHMvMSIsInN0YXR1c19saXN0Ijp7ImlkeCI6NDIsInVyaSI6Imh0dHBzOi8vYXBpLmV4YW1wbGUuY29tL3YxL3N2Yy9zdGF0dXMtbGlzdHMvMSJ9fSwiaXNzIjoiaHR0cHM6Ly9hcGkuZXhhbXBsZS5jb20iLCJzdWIiOiJsaWNfOWhRMm1YYzRUejdMcFcxbkI4dkszZCIsImlhdCI6MTc5MzQ5MTIwMCwibmJmIjoxNzkzNDkxMjAwLCJleHAiOjE3OTYwODMyMDB9.rD22TLmZBP7CqlWTDFZUpVmz5ERxEC79WjxrMAHvqSblP4imG4-3IP0YG74EYGwo8d7caguhOWDssPTaU_FPCQ',
  expiresAt: '2026-12-01T00:00:00.000Z',
};

/** Bit 7 set: the license at status index 7 is revoked; index 42 (the credential's) is not. */
export const exampleStatusList =
  'eyJhbGciOiJFZERTQSIsImtpZCI6Ik1uYVBUUExUZHZOa3psSVV5cG5BeTZUOElJaWxzQXotd080YTh3M1NBNkEiLCJ0eXAiOiJzdGF0dXNsaXN0K2p3dCJ9.eyJ0dGwiOjMwLCJzdGF0dXNfbGlzdCI6eyJiaXRzIjoxLCJsc3QiOiJlSnhyWUJoWUFBQkFnQUNCIn0sInN1YiI6Imh0dHBzOi8vYXBpLmV4YW1wbGUuY29tL3YxL3N2Yy9zdGF0dXMtbGlzdHMvMSIsImlhdCI6MTc5NTk1MzYwMCwiZXhwIjoxNzk1OTU0MjAwfQ.2macWVm5BwU4maq-o56oA8g4-DataNVumJzqVl3id_ARMJQI8gODpLxLZ2xj2zT7KFNehJT0zr5Vlqrz5YT3AA';

export const exampleTreeHead = {
  treeSize: 7,
  rootHash: 'F5JPSJvpc8Rz34e9jX7ZIn85wA86Dee+mgJ8qlRnzIE=',
  timestamp: '2026-11-29T12:00:00.000Z',
  signature:
    'eyJhbGciOiJFZERTQSIsImtpZCI6Ik1uYVBUUExUZHZOa3psSVV5cG5BeTZUOElJaWxzQXotd080YTh3M1NBNkEiLCJ0eXAiOiJ0cmVlLWhlYWQrandzIn0.eyJyb290SGFzaCI6IkY1SlBTSnZwYzhSejM0ZTlqWDdaSW44NXdBODZEZWUrbWdKOHFsUm56SUU9IiwidGltZXN0YW1wIjoiMjAyNi0xMS0yOVQxMjowMDowMC4wMDBaIiwidHJlZVNpemUiOjd9.M5mxXPdmAXXRAD0KfoT1gFToPCXsyt2dPFmU1kgh-w5YCiNkF0J4-j7OFo-R9fPzflpxCIhkfqWP0cbUfdRTBg',
};

export const exampleInclusionProof = {
  leafIndex: 3,
  treeSize: 7,
  auditPath: [
    '/Aho48IQPBE75MF1hp5I3yXXxoHYyLUASVwo5a+yz5s=',
    'BNovmYT37insZMw66+iBNXXIcx58QbqAKC0nrV31DR8=',
    'c2rVJ5hHm426nmlSNH5kanVDCvVVKKWP5UGon1DQt7M=',
  ],
};

export const exampleConsistencyProof = {
  first: 4,
  second: 7,
  proof: ['c2rVJ5hHm426nmlSNH5kanVDCvVVKKWP5UGon1DQt7M='],
};

export const exampleTransparencyEntry = {
  index: 3,
  leafHash: 'Y5QaI6Wc792JreJKsfQCzW8TY9MpLM7x2Azpy2lFIiE=',
  entry:
    '{"at":"2026-11-04T00:00:00.000Z","decision":"license.activated","eventId":"evt_3","facts":{},"identityName":"Ada Lovelace","subject":{"licenseId":"lic_9hQ2mXc4Tz7LpW1nB8vK3d"}}',
  decision: {
    at: '2026-11-04T00:00:00.000Z',
    decision: 'license.activated',
    eventId: 'evt_3',
    facts: {},
    identityName: 'Ada Lovelace',
    subject: {
      licenseId: 'lic_9hQ2mXc4Tz7LpW1nB8vK3d',
    },
  },
  appendedAt: '2026-11-04T00:00:00.412Z',
};

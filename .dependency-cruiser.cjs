/** Architecture rules (docs/spec/style.md): services stay apart, routes never touch data access. */
module.exports = {
  forbidden: [
    {
      name: 'no-service-imports-another',
      comment:
        'A service is reached only through its HTTP API or its events. services/embedded is not a service: it is the one-process launcher that starts each of them.',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: '^services/embedded/' },
      to: { path: '^services/([^/]+)/', pathNot: '^services/$1/' },
    },
    {
      name: 'packages-never-import-services',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
    {
      name: 'no-contract-imports-another',
      comment:
        "A service's contract (packages/contracts/src/<service>/) imports only its own files and common/; common/ imports no service's contract. What two contracts share moves to common/ (docs/adr/0018).",
      severity: 'error',
      from: { path: '^packages/contracts/src/([^/]+)/' },
      to: { path: '^packages/contracts/src/[^/]+/', pathNot: '^packages/contracts/src/($1|common)/' },
    },
    {
      name: 'contracts-through-their-sub-paths',
      comment:
        'Code outside packages/contracts imports a contract by its sub-path (@svc/contracts/registry, /common, /catalogue, /topology, /openapi, /public-document), never the root that re-exports them all: what a file depends on is then visible in its imports (issue #33, docs/adr/0018).',
      severity: 'error',
      from: { pathNot: '^packages/contracts/' },
      to: { path: '^packages/contracts/(src|dist)/index\\.(ts|js|d\\.ts)$' },
    },
    {
      name: 'routes-never-import-data-access',
      comment: 'Entry points parse, call a use case, respond; SQL lives only in data-access.',
      severity: 'error',
      from: { path: '/src/entry-points/' },
      to: { path: '/src/data-access/' },
    },
    {
      name: 'domain-never-imports-entry-points',
      severity: 'error',
      from: { path: '/src/domain/' },
      to: { path: '/src/entry-points/' },
    },
    {
      name: 'domain-depends-only-on-ports',
      comment:
        'Domain code names the database through @svc/ports (Queryable, Database); the engines, Kysely and migrations of @svc/storage are for start.ts and data-access (docs/adr/0020).',
      severity: 'error',
      from: { path: '^services/[^/]+/src/domain/' },
      to: { path: ['^packages/storage/', '(^|/)node_modules/@svc/storage/'] },
    },
    {
      name: 'data-access-imports-only-domain-types',
      comment:
        "A repository implements its domain's ports, so it names the domain's types (type-only imports); domain code must not run from data-access (docs/adr/0020).",
      severity: 'error',
      from: { path: '^services/[^/]+/src/data-access/' },
      to: {
        path: '^services/[^/]+/src/domain/',
        // No exception left (ADR 0020): the compact tables the snapshot reader marks are the
        // name-matching package's since it left detection's domain.
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'default', 'types'] },
  },
};

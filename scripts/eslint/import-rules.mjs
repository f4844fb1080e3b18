// @ts-check
// The import graph between our libraries, written down (what each library and each domain context may
// import), and the no-restricted-imports rules eslint.config.js makes of it; test/import-boundaries.e2e-spec.ts
// holds the graph against the tree and checks that it stays acyclic.

/**
 * Today's import graph between the domain contexts (libs/domain/<context>), written down: a context
 * imports only the contexts of its row. It must stay acyclic (test/import-boundaries.e2e-spec.ts checks
 * it); `node scripts/eslint/library-graph.mjs` prints the graph the tree has.
 */
export const DOMAIN_IMPORTS = {
  accounts: ['upstream-failures'],
  audit: [],
  consents: ['accounts', 'events', 'institutions', 'sync-runs', 'upstream-failures'],
  events: ['users'],
  'financial-data': ['accounts', 'consents', 'upstream-failures'],
  inbox: ['consents', 'payments', 'upstream-failures'],
  institutions: ['accounts', 'upstream-failures'],
  merchants: ['upstream-failures'],
  payments: ['accounts', 'consents', 'events', 'financial-data', 'upstream-failures'],
  sync: [
    'accounts',
    'consents',
    'events',
    'financial-data',
    'payments',
    'sync-runs',
    'upstream-failures',
    'users',
  ],
  'sync-runs': [],
  'upstream-calls': [],
  'upstream-failures': [],
  users: ['merchants', 'upstream-failures'],
};

/**
 * The same for the libraries below the domain, which never import it. A domain context may import any
 * of these but libs/http and libs/core (the composition root). libs/testing, what unit specs share, sits above everything and only specs import
 * it; the tests under test/ use the kit in test/kit/, which starts apps and so cannot live in libs/.
 */
export const LIBRARY_IMPORTS = {
  config: [],
  context: ['errors'],
  core: ['config', 'database', 'observability', 'queue', 'redis', 'time', 'upstream-client'],
  crypto: [],
  currency: [],
  database: ['config', 'observability', 'redis'],
  errors: [],
  http: ['context', 'errors', 'observability'],
  ids: [],
  // The merchant SDK is published alone (npm pack): it imports no library of ours.
  'merchant-sdk': [],
  observability: ['context'],
  queue: ['config', 'context', 'errors', 'observability', 'redis'],
  redis: ['config', 'observability'],
  routes: [],
  time: ['errors'],
  'upstream-client': ['config', 'context', 'observability', 'upstream-openapi'],
  // The upstream's published types, which the sandbox checks its answers against too.
  'upstream-openapi': [],
};

/** The test files, which may import the test kit. */
export const SPECS = ['**/*.spec.ts', '**/*.e2e-spec.ts'];

const HTTP = 'libs/domain must not import HTTP code.';

export const HTTP_IN_DOMAIN = {
  paths: [
    '#libs/http',
    'fastify',
    '@nestjs/platform-fastify',
    '@nestjs/passport',
    '@nestjs/swagger',
    'passport',
    'passport-custom',
  ]
    .map((name) => ({ name, message: HTTP }))
    .concat({ name: '#libs/core', message: 'libs/domain never imports the composition root, libs/core.' }),
  patterns: [{ group: ['@fastify/*'], message: HTTP }],
};

const NODE_BUILT_INS = [
  'node:*',
  'buffer',
  'crypto',
  'events',
  'fs',
  'http',
  'https',
  'net',
  'path',
  'stream',
  'url',
];
/** The merchant SDK runs in browsers as well as in Node: none of Node's modules. */
export const BROWSER_SAFE = {
  paths: [],
  patterns: [
    { group: NODE_BUILT_INS, message: 'libs/merchant-sdk runs in browsers too: no Node built-ins.' },
  ],
};

/**
 * no-restricted-imports for the code of one library (the last block naming a rule wins, so each file
 * gets exactly one): `#libs/<scope><name>` only for the names in `allowed`, the test kit in specs only,
 * never an app, never another library's files by a relative path.
 */
export function libraryBlocks(library, { scope, allowed, message, extra = { paths: [], patterns: [] } }) {
  const rule = (specs) => [
    'error',
    {
      paths: extra.paths,
      patterns: [
        ...extra.patterns,
        { regex: `^#libs/${scope}(?!(?:${['testing', ...allowed].join('|')})$)`, message },
        ...(specs
          ? []
          : [{ regex: '^#libs/testing$', message: 'Only specs import the test kit (libs/testing).' }]),
        { group: ['**/apps/**'], message: 'Libraries never import apps.' },
        {
          regex: '^(\\.\\./)+(domain/)?[^/]+/src/',
          message: 'Reach another library through its #libs/ name.',
        },
      ],
    },
  ];
  return [
    { files: [`${library}/**/*.ts`], ignores: SPECS, rules: { 'no-restricted-imports': rule(false) } },
    { files: SPECS.map((spec) => `${library}/${spec}`), rules: { 'no-restricted-imports': rule(true) } },
  ];
}

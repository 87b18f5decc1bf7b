// The layering of docs/architecture.md ("Dependencies, layer by layer"), checked by `npm run lint`.
// Type-only imports count (tsPreCompilationDeps): a type pulled from an upper layer ties the layers
// as surely as a value does.
const INFRA =
  '^src/(store|storage|queue|ratelimit|audio|dsp|onnx|net|separation|denoise|analysis|sources|offload|engines|models|metrics|dependencies)/';
const SERVICES = '^src/(jobs|uploads|webhooks|accounts)/';
const CALLERS = '^src/(worker|http|dashboard|routing)/';
const COMPOSITION = '^src/(app|cli)/|^src/(runtime|bootstrap|startup-sweep)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle, type-only ones included.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-nothing-of-ours',
      severity: 'error',
      comment: 'domain/ holds the pure rules and the vocabulary: it imports nothing of ours.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'contract-only-domain',
      severity: 'error',
      comment: "contract/ (the API's zod schemas) imports only domain/.",
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/(domain|contract)/' },
    },
    {
      name: 'config-only-domain',
      severity: 'error',
      comment:
        'config.ts (and its parts in config/) is read by every layer: it imports only domain/ and what storage backends declare.',
      from: { path: '^src/config([.]ts$|/)' },
      to: { path: '^src/', pathNot: '^src/(domain|config)/|^src/config[.]ts$|^src/storage/backends[.]ts$' },
    },
    {
      name: 'infrastructure-below-contract-and-services',
      severity: 'error',
      comment: 'Adapters and engines sit below the contract, the services and their callers.',
      from: { path: INFRA },
      to: { path: `^src/contract/|${SERVICES}|${CALLERS}|${COMPOSITION}` },
    },
    {
      name: 'storage-below-config',
      severity: 'error',
      comment: 'config.ts reads what storage backends declare; storage/ takes its settings typed, never the Config.',
      from: { path: '^src/storage/' },
      to: { path: '^src/config([.]ts$|/)' },
    },
    {
      name: 'jobs-below-webhooks',
      severity: 'error',
      comment:
        'The webhook dispatcher reads jobs (their events and payloads, jobs/events/); jobs never import webhooks/, so the two folders form no loop.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/webhooks/' },
    },
    {
      name: 'services-below-callers',
      severity: 'error',
      comment:
        'jobs/, uploads/, webhooks/ and accounts/ are called by the workers, the API and the dashboard, never the reverse.',
      from: { path: SERVICES },
      to: { path: `${CALLERS}|${COMPOSITION}` },
    },
    {
      name: 'routing-below-api-and-dashboard',
      severity: 'error',
      comment: 'routing/ is the route kit the API and the dashboard share: it imports neither.',
      from: { path: '^src/routing/' },
      to: { path: `^src/(worker|http|dashboard)/|${COMPOSITION}` },
    },
    {
      name: 'api-and-dashboard-are-siblings',
      severity: 'error',
      comment: 'http/ and dashboard/ do not import each other; src/app/ mounts both.',
      from: { path: '^src/http/' },
      to: { path: '^src/dashboard/' },
    },
    {
      name: 'dashboard-and-api-are-siblings',
      severity: 'error',
      comment: 'http/ and dashboard/ do not import each other; src/app/ mounts both.',
      from: { path: '^src/dashboard/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'workers-beside-the-api',
      severity: 'error',
      comment: 'worker/ runs jobs; it imports no route code.',
      from: { path: '^src/worker/' },
      to: { path: '^src/(http|dashboard|routing)/' },
    },
    {
      name: 'callers-below-composition',
      severity: 'error',
      comment:
        'Only the composition (app/, cli/, runtime.ts, bootstrap.ts) holds everything; route groups take the Runtime as a type.',
      from: { path: CALLERS },
      to: { path: COMPOSITION, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'callers-never-name-the-app-or-cli',
      severity: 'error',
      comment: 'Even as a type: app/ and cli/ are the top.',
      from: { path: `${CALLERS}|^src/(runtime|bootstrap|startup-sweep)[.]ts$` },
      to: { path: '^src/(app|cli)/' },
    },
    {
      name: 'sql-only-in-store',
      severity: 'error',
      comment: 'Kysely (SQL) is used only in store/.',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: 'node_modules/kysely/' },
    },
    {
      name: 'src-never-imports-tests-or-benches',
      severity: 'error',
      comment: 'Nothing in src/ exists for tests only.',
      from: { path: '^src/' },
      to: { path: '^(test|bench|support)/' },
    },
    {
      name: 'tests-never-import-benches',
      severity: 'error',
      comment: 'What tests and benchmarks share lives in support/; a test never imports bench/.',
      from: { path: '^test/' },
      to: { path: '^bench/' },
    },
    {
      name: 'web-only-contract-and-domain',
      severity: 'error',
      comment: "The dashboard's front end shares only the API's schemas and words with the server.",
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/(domain|contract)/' },
    },
    {
      name: 'web-and-tools-never-import-tests-or-benches',
      severity: 'error',
      comment: 'The front end and the tools stand on src/ and support/ alone.',
      from: { path: '^(web|tools)/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'support-never-imports-tests',
      severity: 'error',
      comment: 'support/ is what tests and benchmarks share.',
      from: { path: '^support/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^web/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mjs', '.js', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

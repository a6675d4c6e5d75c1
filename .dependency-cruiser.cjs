/*
 * The dependency rules of lib/ (npm run deps; part of npm test). Folders of lib/ are subjects
 * (termination, dynamodb, http, ...); they must form no cycle, the domain must not reach the
 * edge (HTTP, texts and the authorizer live in lib/http and lib/auth, called from functions/),
 * and the domain (lib/termination, lib/api-model) must not reach AWS: it has ports, lib/dynamodb
 * and lib/aws implement them. The adapters know the domain only through its port: they report
 * facts, and the rules that turn facts into outcomes stay in lib/termination.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Two folders of lib/ import each other, directly or through others.',
      scope: 'folder',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      from: { path: '^(lib|functions)/' },
      to: { circular: true },
    },
    {
      name: 'domain-knows-no-edge',
      severity: 'error',
      comment: 'The domain speaks domain: statuses, headers and languages are chosen in lib/http.',
      from: { path: '^lib/(termination|api-model|events|aws|dynamodb)/|^lib/(config|backoff)[.]ts$' },
      to: { path: '^lib/(http|auth|observability)/' },
    },
    {
      name: 'domain-knows-no-aws',
      severity: 'error',
      comment:
        'Use cases and rules depend on ports (lib/termination/ports/), never on the AWS SDK, Lambda event types or the adapters that use them (lib/dynamodb, lib/aws, lib/events).',
      from: { path: '^lib/(termination|api-model)/' },
      to: { path: '^(aws-lambda$|node_modules/(@aws-sdk/|@types/aws-lambda/|aws-lambda/)|lib/(dynamodb|aws|events)/)' },
    },
    {
      name: 'adapters-report-facts',
      severity: 'error',
      comment:
        "A store reports facts in the domain's words (lib/termination/ports/: which condition failed, with its item); the rules that turn facts into outcomes (use cases, lifecycle, contract rules) live once in lib/termination, out of the adapters' reach.",
      from: { path: '^lib/(dynamodb|aws)/' },
      to: { path: '^lib/termination/', pathNot: '^lib/termination/ports/' },
    },
    {
      name: 'product-stands-alone',
      severity: 'error',
      comment: 'What is deployed must not depend on tools, tests or the bench.',
      from: { path: '^(lib|functions)/' },
      to: { path: '^(scripts|tests|bench|client|web)/' },
    },
    {
      name: 'functions-are-entry-points',
      severity: 'error',
      comment: 'Nothing imports a Lambda entry point but tests and tools.',
      from: { path: '^lib/' },
      to: { path: '^functions/' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: 'The client ships to other teams on its own: it may use only its own files and packages.',
      from: { path: '^client/' },
      to: { path: '^(lib|functions|scripts|tests|bench|web|resources)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};

// The floors of the codebase and the rules that keep imports pointing down them, checked by dependency-cruiser
// in `npm run lint` and by packages/server/test/architecture.test.ts (so in `npm test`, CI's command, too).
// The floors table of docs/design.md (between `floors:start` and `floors:end`) is generated from these rules and
// from the imports themselves by scripts/floors.mjs; the architecture test fails when it is out of date.
//
// Every import counts, type-only ones included: a type imported from an upper floor ties the lower floor to it
// as surely as a value does (it must change when the upper one does), so each type lives on the lowest floor
// that uses it. Tests beside the code (src/**/*.test.ts) are held to the cycle rule like the code; the floor
// rules are about the product, so a test may reach into any floor to set up what it checks.

const SERVER = '^packages/server/src/';
const NOT_TESTS = '[.](test|spec)[.]tsx?$';
/** The floors above the services, by folder: they may use the services, never the other way round. */
const ABOVE_SERVICES = `${SERVER}(http|routes|tools|mcp)/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle has no bottom floor: neither side can be read, tested or changed without the other, and an ES ' +
        'module cycle can see a half-initialised binding at start-up. Server, SDK and dashboard alike.',
      from: { path: '^packages/(server|sdk|dashboard)/src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'domain/ decides (money, policies, batches) without I/O, so it imports nothing but domain/, errors.ts, ' +
        'clock.ts and npm libraries: what it needs from the ledger, store or services is a type or constant ' +
        'that belongs here, and they import it from domain/.',
      from: { path: `${SERVER}domain/`, pathNot: NOT_TESTS },
      to: { path: '^packages/', pathNot: `${SERVER}(domain/|errors[.]ts$|clock[.]ts$)` },
    },
    {
      name: 'payment-methods-are-protocols',
      severity: 'error',
      comment:
        'payments/ holds each way to pay as a module of its own: the protocol (offers, terms, credential, ' +
        'receipt), pure. It imports nothing but payments/, domain/, errors.ts and npm libraries; deciding, ' +
        "debiting, signing and settling are the services' and the ledger's, the same for every method.",
      from: { path: `${SERVER}payments/`, pathNot: NOT_TESTS },
      to: { path: '^packages/', pathNot: `${SERVER}(payments/|domain/|errors[.]ts$)` },
    },
    {
      name: 'store-imports-only-domain',
      severity: 'error',
      comment:
        'store/ (Kysely, migrations) stands on the pure domain/ alone: it imports no services/ (nor the ' +
        'ledger, the rail or HTTP), only store/, domain/ and errors.ts.',
      from: { path: `${SERVER}store/`, pathNot: NOT_TESTS },
      to: { path: '^packages/', pathNot: `${SERVER}(store/|domain/|errors[.]ts$)` },
    },
    {
      name: 'ledger-below-the-rail',
      severity: 'error',
      comment:
        'ledger/ is the only writer of balances; the rail and the services call it, so it imports neither ' +
        '(nor anything above them).',
      from: { path: `${SERVER}ledger/`, pathNot: NOT_TESTS },
      to: { path: `${SERVER}(services|chain|http|routes|tools|mcp)/` },
    },
    {
      name: 'rail-below-services',
      severity: 'error',
      comment:
        'chain/ (the evm rail) is an adapter the services call. What its workers need from the services ' +
        '(crediting a deposit, ending a payment) is handed to them at construction (chain/books.ts), never ' +
        'imported: otherwise chain/ is both above and below services/.',
      from: { path: `${SERVER}chain/`, pathNot: NOT_TESTS },
      to: { path: `${SERVER}(services|http|routes|tools|mcp)/` },
    },
    {
      name: 'services-below-http',
      severity: 'error',
      comment:
        'services/ are the use cases REST, MCP and the tools share: they know nothing of HTTP, routes, tools ' +
        'or MCP, so each of those can change without touching them.',
      from: { path: `${SERVER}services/`, pathNot: NOT_TESTS },
      to: { path: ABOVE_SERVICES },
    },
    {
      name: 'no-store-in-routes-or-tools',
      severity: 'error',
      comment:
        'routes/ and tools/ speak to the services only: a query in a route or tool escapes the ownership ' +
        'checks, locks and batching the services apply. Move the query into a service.',
      from: { path: `${SERVER}(routes|tools)/`, pathNot: NOT_TESTS },
      to: { path: `${SERVER}store/` },
    },
    {
      name: 'sdk-not-server',
      severity: 'error',
      comment:
        'The SDK is published alone: at run time (and in its published types) it imports nothing from the ' +
        'server. Its build scripts may read the server to generate code (scripts/ is not shipped).',
      from: { path: '^packages/sdk/(src|examples)/' },
      to: { path: '^packages/server/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    // TypeScript 7 has no compiler API yet; swc parses the sources as written, so type-only imports are seen.
    parser: 'swc',
    // Imports name their `.ts`/`.tsx` files (Node type stripping); the dashboard's `@agent-wallet/sdk` is its
    // source through tsconfig paths.
    tsConfig: { fileName: 'packages/dashboard/tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};

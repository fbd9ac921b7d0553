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

/**
 * The server's floors as whitelists: for each floor, the path of its files (under packages/server/src/) and the
 * floors it MAY import (itself included); an import of any other server file is an error. So a new import that
 * points up, or sideways to a floor not listed, fails until the list here is changed on purpose. npm libraries
 * and node: builtins are not floors. scripts/floors.mjs names the same floors for docs/design.md's table.
 */
const FLOOR_PATHS = {
  entry: '(server|cli|operate)[.]ts$',
  app: 'app/',
  routes: 'routes/',
  mcp: 'mcp/',
  tools: 'tools/',
  http: 'http/',
  services: '(services/|metrics[.]ts$)',
  payments: 'payments/',
  config: 'config(-environment)?[.]ts$',
  chain: 'chain/',
  ledger: 'ledger/',
  limits: 'limits/',
  store: 'store/',
  domain: '(domain/|errors[.]ts$|clock[.]ts$|log-scrub[.]ts$|version[.]ts$)',
};
/** Single files (or, starting with ^, paths outside the server's sources) a floor may reach beyond its floors. */
const STORE_ERRORS = 'store/errors[.]ts$';
const SDK_CLIENT = '^packages/sdk/src/';
/** The calendar periods of spend_cap_period: one pure module for the server's budgets and the dashboard. */
const SDK_CALENDAR_PERIOD = '^packages/sdk/src/calendar-period[.]ts$';
const SERVER_PACKAGE_JSON = '^packages/server/package[.]json$';

/** One rule per floor: its files import only what `may` lists (floors by name, or single files). */
function floorRule(name, floor, may, comment) {
  const inServer = may.filter((m) => !m.startsWith('^')).map((m) => FLOOR_PATHS[m] ?? m);
  const outside = may.filter((m) => m.startsWith('^'));
  const shown = (m) =>
    FLOOR_PATHS[m] === undefined
      ? `\`${m.replace(/^\^/, '').replaceAll('[.]', '.').replace(/[$]$/, '')}\``
      : m;
  return {
    name,
    severity: 'error',
    comment: `${comment}. Whitelist: ${may.map(shown).join(', ')}.`,
    from: { path: `${SERVER}${FLOOR_PATHS[floor]}`, pathNot: NOT_TESTS },
    to: { path: '^packages/', pathNot: [`${SERVER}(${inServer.join('|')})`, ...outside] },
  };
}

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
    floorRule(
      'app-is-the-top',
      'app',
      ['app', 'routes', 'mcp', 'tools', 'http', 'services', 'config', 'limits', 'domain'],
      'app/ assembles the Fastify app and its OpenAPI document from everything below it; only the entry ' +
        '(server.ts, cli.ts, operate.ts) stands above it',
    ),
    floorRule(
      'routes-speak-to-services',
      'routes',
      ['routes', 'tools', 'http', 'services', 'payments', 'config', 'domain'],
      'routes/ speak to the services only: a query in a route escapes the ownership checks, locks and batching ' +
        'the services apply, so the store is not on the list (move the query into a service); nor is app/ or mcp/',
    ),
    floorRule(
      'mcp-over-the-tools',
      'mcp',
      ['mcp', 'tools', 'http', 'services', 'config', 'domain', SDK_CLIENT],
      'mcp/ is a face of the tools (stdio, Streamable HTTP): it runs them, never routes/ or the store; its ' +
        'stdio bridge speaks to a running service through the SDK’s client',
    ),
    floorRule(
      'tools-speak-to-services',
      'tools',
      ['tools', 'http', 'services', 'payments', 'config', 'domain'],
      'tools/ are defined once for REST, MCP and the SDK and speak to the services only (no store, no routes/: ' +
        'the views both share live in http/views.ts)',
    ),
    floorRule(
      'http-below-the-faces',
      'http',
      ['http', 'services', 'config', 'limits', STORE_ERRORS, 'domain'],
      'http/ (auth and rate-limit hooks, errors, schemas, views) is what routes, tools and MCP share: it knows ' +
        'none of them nor the app; a tool is known here by its name (domain/tool-names.ts). Of the store only ' +
        'its error classifier, so a driver failure becomes a 503',
    ),
    floorRule(
      'services-below-http',
      'services',
      ['services', 'payments', 'config', 'chain', 'ledger', 'limits', 'store', 'domain'],
      'services/ are the use cases REST, MCP and the tools share: they know nothing of HTTP, routes, tools ' +
        'or MCP, so each of those can change without touching them',
    ),
    floorRule(
      'payment-methods-are-protocols',
      'payments',
      ['payments', 'domain'],
      'payments/ holds each way to pay as a module of its own: the protocol (offers, terms, credential, ' +
        "receipt), pure; deciding, debiting, signing and settling are the services' and the ledger's, the " +
        'same for every method',
    ),
    floorRule(
      'config-reads-the-environment',
      'config',
      ['config', 'chain', 'limits', 'domain'],
      'config.ts parses the environment once, with the settings the rail and the limiter define',
    ),
    floorRule(
      'rail-below-services',
      'chain',
      ['chain', 'ledger', 'store', 'domain'],
      'chain/ (the evm rail) is an adapter the services call. What its workers need from the services ' +
        '(crediting a deposit, ending a payment) is handed to them at construction (chain/books.ts), never ' +
        'imported: otherwise chain/ is both above and below services/',
    ),
    floorRule(
      'ledger-below-the-rail',
      'ledger',
      ['ledger', 'store', 'domain'],
      'ledger/ is the only writer of balances; the rail and the services call it, so it imports neither ' +
        '(nor anything above them)',
    ),
    floorRule(
      'limits-stand-alone',
      'limits',
      ['limits', 'domain'],
      'limits/ (the rate limiter over memory or Redis) counts and names buckets; it knows no request, route or tool',
    ),
    floorRule(
      'store-imports-only-domain',
      'store',
      ['store', 'domain'],
      'store/ (Kysely, migrations) stands on the pure domain/ alone: no services/, ledger, rail or HTTP',
    ),
    floorRule(
      'domain-is-pure',
      'domain',
      ['domain', SERVER_PACKAGE_JSON, SDK_CALENDAR_PERIOD],
      'domain/ decides (money, policies, batches) without I/O: what it needs from the ledger, store or ' +
        'services is a type or constant that belongs here, and they import it from domain/ (errors.ts, ' +
        'clock.ts, log-scrub.ts and version.ts, which reads package.json, stand on this floor too)',
    ),
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

// `agent-wallet`: serve (what `npm start` runs), migrate, verify-ledger, mcp (stdio bridge).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
// A type only: the chain code itself is loaded for --chain alone.
import type { ChainReport } from './chain/reconcile/reconcile.ts';
import { systemClock } from './clock.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { formatMicros } from './domain/money.ts';
import { verifyLedger } from './ledger/verify.ts';
import { openStore } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { VERSION } from './version.ts';

const HELP = `agent-wallet ${VERSION}: wallets, ledgers and spending policies for AI agents

Usage: agent-wallet <command>

Commands:
  serve           start the HTTP service and dashboard (PORT, HOST, DATABASE_URL, DATA_DIR, REDIS_URL, ...)
  migrate         apply database migrations and exit
  verify-ledger   recompute every balance from the ledger entries; exit 1 naming any inconsistency
                  --chain (RAIL=evm): also prove reserves: on-chain USDC covers every liability, and every
                  transfer of the service's addresses matches exactly one ledger record
  verify-audit    check every organization's audit log: lines numbered one by one, each hash over the one
                  before, each outcome sealed; prints each chain's head (keep it elsewhere to prove later
                  that nothing was removed)
  mcp             MCP stdio bridge for desktop clients (AGENT_WALLET_API_KEY, AGENT_WALLET_URL)
  mcp --upstream <url>  front a paid MCP server: its tools, each paid call paid through the wallet
  backup --out FILE   a consistent snapshot of the store, online, with the deployment's secrets (file 0600)
  restore --in FILE   load a backup into an empty store (DATA_DIR / DATABASE_URL) and verify the ledger
  move --to URL       carry the embedded store into an empty PostgreSQL schema, checked table by table;
                      stop the service first

Every command that opens the database reads DATABASE_SCHEMA as the service does; --schema NAME overrides it.
  deploy-smart-accounts   a local chain only (anvil): deploy the MetaMask Delegation Framework from its npm
                  bytecode, paid by the service's key; prints the address variables TREASURY_MODE=bounded needs
  treasury-prepare --out FILE   TREASURY_MODE=bounded: deploy the owners' account if it has no code yet and write
                  the delegation its owners sign (its EIP-712 form) to FILE
  treasury-grant --in FILE      the prepared FILE with the owners' "signatures" added: checked on chain and stored;
                  on a deployment that ran hot, says what its switch moves into the owners' account (the service
                  moves it once restarted with TREASURY_MODE=bounded)
  treasury-create-hybrid --email ADDRESS [--owner 0x...]
                  a HybridDeleGator treasury account whose keys are the passkeys that person enrolled here
                  (and/or the owner's address); prints TREASURY_ACCOUNT_KIND=hybrid and TREASURY_ACCOUNT
  reset-password --email ADDRESS
                  a one-time link (1 hour) that sets a new password for that account; hand it to that
                  person only (every session ends; a second factor stays)
  --help          this text

Configuration is read from the environment; see docs/reference/environment.md (npm run docs).`;

const SHUTDOWN_DEADLINE_MS = 15_000;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      chain: { type: 'boolean' },
      out: { type: 'string' },
      in: { type: 'string' },
      to: { type: 'string' },
      schema: { type: 'string' },
      email: { type: 'string' },
      upstream: { type: 'string' },
      owner: { type: 'string' },
    },
  });
  const command = positionals[0];
  if (values.version) return print(VERSION);
  if (values.help || command === undefined || command === 'help') return print(HELP);
  switch (command) {
    case 'serve':
      return serve();
    case 'migrate':
      return migrate(values.schema);
    case 'verify-ledger':
      return verify(values.chain === true, values.schema);
    case 'verify-audit':
      return verifyAudit(values.schema);
    case 'backup':
    case 'restore':
    case 'move':
      return operate(command, values);
    case 'reset-password':
      return resetLink(values.email, values.schema);
    case 'deploy-smart-accounts':
    case 'treasury-prepare':
    case 'treasury-grant':
      return treasury(command, values);
    case 'treasury-create-hybrid':
      return createHybrid(values);
    case 'mcp': {
      const { runStdioBridge } = await import('./mcp/stdio.ts');
      return runStdioBridge(process.env, values.upstream);
    }
    default:
      process.stderr.write(`unknown command "${command}"\n\n${HELP}\n`);
      return 2;
  }
}

async function serve(): Promise<number> {
  const config = loadConfig();
  // The service (Fastify, MCP, every route) is loaded only to serve: the operator's commands start in a fraction.
  const { closeOnSignals, startServer } = await import('./server.ts');
  const server = await startServer(config, { clock: systemClock, logLevel: config.logLevel });
  closeOnSignals(server, { drainMs: config.shutdownDrainMs, shutdownDeadlineMs: SHUTDOWN_DEADLINE_MS });
  for (const warning of config.warnings) server.app.log.warn(warning);
  // Browsers refuse passkeys on an IP address: the dashboard is given by name.
  const dashboard =
    config.dashboardDir === undefined
      ? ' (dashboard not built: npm run build)'
      : `; dashboard at ${config.publicUrl ?? `http://localhost:${config.port}`}`;
  server.app.log.info(`agent-wallet ${VERSION} listening on ${server.url}${dashboard}; rail ${config.rail}`);
  return -1; // keep running
}

async function operate(
  command: 'backup' | 'restore' | 'move',
  values: {
    out?: string | undefined;
    in?: string | undefined;
    to?: string | undefined;
    schema?: string | undefined;
  },
): Promise<number> {
  const operations = await import('./operate.ts');
  const ctx = {
    config: loadConfig(),
    openStore: (target?: { databaseUrl: string }) => openConfiguredStore(values.schema, target?.databaseUrl),
    print: (text: string) => void print(text),
    nowIso: () => new Date(systemClock.nowMs()).toISOString(),
  };
  const need = (value: string | undefined, flag: string) => {
    if (value === undefined || value === '') throw new ConfigError(`${command} needs ${flag}`);
    return value;
  };
  if (command === 'backup') return operations.backup(ctx, need(values.out, '--out FILE'));
  if (command === 'restore') return operations.restore(ctx, need(values.in, '--in FILE'));
  return operations.move(ctx, { databaseUrl: need(values.to, '--to postgres://…') });
}

/**
 * The store every operator command opens: the service's own (DATABASE_URL, DATABASE_SCHEMA), or another URL for
 * `move --to`. The schema is read the same way for every command, the service's included, so that what a command
 * writes is where the service started with the same environment looks; `--schema` overrides it.
 */
async function openConfiguredStore(schemaFlag: string | undefined, databaseUrl?: string) {
  const config = loadConfig();
  return openStore({
    databaseUrl: databaseUrl ?? config.databaseUrl,
    dataDir: config.dataDir,
    postgresSchema: schemaFlag ?? config.databaseSchema,
    postgresPoolSizeMax: 2,
    sqliteBusyTimeoutMs: 5_000,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    // Operator commands read the whole ledger: no statement bound (the operator sees a hang, not a user).
    statementTimeoutMs: 0,
    transactionPooling: config.databaseTransactionPooling,
    onConnectionError: (error) => process.stderr.write(`database connection error: ${error.message}\n`),
  });
}

async function migrate(schemaFlag: string | undefined): Promise<number> {
  const store = await openConfiguredStore(schemaFlag);
  try {
    const { applied } = await migrateToLatest(store.db, store.schema);
    return print(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`);
  } finally {
    await store.close();
  }
}

async function verify(withChain: boolean, schemaFlag: string | undefined): Promise<number> {
  const config = loadConfig();
  if (withChain && config.evm === null)
    throw new ConfigError('verify-ledger --chain needs RAIL=evm and its settings');
  const store = await openConfiguredStore(schemaFlag);
  try {
    const report = await verifyLedger(store);
    const summary = `${report.accounts} accounts, ${report.transactions} ledger transactions`;
    if (!report.ok) return broken(`ledger BROKEN (${summary})`, report.problems);
    print(`ledger OK: ${summary}, every balance matches its entries`);
    if (config.evm === null || !withChain) return 0;
    // The chain code (viem) is loaded only for --chain: every other command, `serve` on the sandbox included,
    // does without it.
    const { serviceKeys } = await import('./chain/keys.ts');
    const { createChainClient } = await import('./chain/client.ts');
    const { reconcileChain } = await import('./chain/reconcile/reconcile.ts');
    const keys = serviceKeys(config.evm.mnemonic);
    const bounded = config.evm.bounded === null ? null : await import('./chain/bounded/bounded.ts');
    const chain = await reconcileChain(
      store.db,
      createChainClient(config.evm),
      config.evm,
      keys.treasury.address.toLowerCase(),
      bounded === null ? null : bounded.boundedAccount(config.evm.bounded!, keys),
    );
    const totals = chainTotals(chain);
    if (!chain.ok) return broken(`chain BROKEN (${totals})`, chain.problems);
    return print(`chain OK: ${totals}; reserves cover the ledger and every transfer matches one record`);
  } finally {
    await store.close();
  }
}

/** verify-ledger --chain's figures: where the holdings are, and what of the liabilities is still in flight. */
function chainTotals(chain: ChainReport): string {
  const usdc = (micros: bigint) => `${formatMicros(micros)} USDC`;
  const where = [
    chain.accountMicros === null ? null : `owners' account ${usdc(chain.accountMicros)}`,
    `${chain.accountMicros === null ? 'treasury' : 'float'} ${usdc(chain.floatMicros)}`,
    `deposit addresses ${usdc(chain.depositAddressesMicros)}`,
  ].filter((part) => part !== null);
  return `holdings ${usdc(chain.holdingsMicros)} (${where.join(', ')}), liabilities ${usdc(chain.liabilitiesMicros)} (in flight ${usdc(chain.inFlightMicros)}: payouts not yet mined, withdrawals waiting for the owners' signatures, paid requests not yet settled), ${chain.transfers} transfers`;
}

/** The bounded treasury's set-up (chain/bounded/bounded-setup.ts); the chain code is loaded only for these. */
async function treasury(
  command: 'deploy-smart-accounts' | 'treasury-prepare' | 'treasury-grant',
  files: { out?: string | undefined; in?: string | undefined; schema?: string | undefined },
): Promise<number> {
  const { serviceKeys } = await import('./chain/keys.ts');
  const { createChainClient } = await import('./chain/client.ts');
  const setup = await import('./chain/bounded/bounded-setup.ts');
  if (command === 'deploy-smart-accounts') {
    // The framework's addresses are what this prints: the rest of the bounded configuration is not needed yet.
    const config = loadConfig({ ...process.env, TREASURY_MODE: 'hot' });
    const evm = needEvm(config.evm);
    const deployed = await setup.deployFramework(createChainClient(evm), evm, serviceKeys(evm.mnemonic));
    return print(deployed.lines.join('\n'));
  }
  const evm = needEvm(loadConfig().evm);
  if (evm.bounded === null) throw new ConfigError(`${command} needs TREASURY_MODE=bounded and its settings`);
  const store = await openConfiguredStore(files.schema);
  try {
    const deps = {
      db: store.db,
      client: createChainClient(evm),
      config: evm,
      keys: serviceKeys(evm.mnemonic),
    };
    const nowMs = systemClock.nowMs();
    if (command === 'treasury-prepare') {
      const out = need(files.out, command, '--out FILE');
      const prepared = await setup.prepareDelegation(deps);
      writeFileSync(
        out,
        `${JSON.stringify(prepared, (_k, v) => (typeof v === 'bigint' ? String(v) : v), 2)}\n`,
      );
      if (evm.bounded.accountKind === 'hybrid')
        return print(
          `the hybrid account is ${prepared.delegation.delegator}; one of its keys signs ${out}: its owner's address the typedData (eth_signTypedData_v4), added as "signatures": [{"signer", "signature"}], or one of its passkeys a WebAuthn assertion whose challenge is "digest", added as "signatures": [{"passkey": <AuthenticationResponseJSON>}]; then run treasury-grant --in ${out}`,
        );
      return print(
        `the owners' account is ${prepared.delegation.delegator}; ${prepared.threshold} of its owners sign the typedData in ${out} (eth_signTypedData_v4), add "signatures": [{"signer", "signature"}] to the file, then run treasury-grant --in ${out}`,
      );
    }
    const input = JSON.parse(readFileSync(need(files.in, command, '--in FILE'), 'utf8'));
    const id = await setup.grantDelegation(deps, input, nowMs);
    print(`delegation ${id} stored: the service refills its float within the allowance from now on`);
    return print(switchText(await setup.switchPlan(deps), evm.bounded.floatMaxMicros));
  } finally {
    await store.close();
  }
}

/** What a deployment that ran hot moves into the owners' account once it runs bounded (float-return.ts). */
function switchText(
  plan: { floatMicros: bigint; owedMicros: bigint; returnMicros: bigint },
  maxMicros: bigint,
) {
  const usdc = (micros: bigint) => `${formatMicros(micros)} USDC`;
  if (plan.returnMicros === 0n)
    return `the service's key holds ${usdc(plan.floatMicros)}, within TREASURY_FLOAT_MAX (${usdc(maxMicros)}): nothing to move`;
  return (
    `the service's key holds ${usdc(plan.floatMicros)} (a hot treasury): once the service runs with TREASURY_MODE=bounded, its first rounds move ${usdc(plan.returnMicros)} into the owners' account through its outbox, ` +
    `keeping TREASURY_FLOAT_MAX (${usdc(maxMicros)}) and the ${usdc(plan.owedMicros)} payments in flight still take; restart every instance with the bounded settings, then run verify-ledger --chain`
  );
}

/** `treasury-create-hybrid`: the account from a person's enrolled passkeys (chain/bounded/bounded-setup.ts). */
async function createHybrid(values: {
  email?: string | undefined;
  owner?: string | undefined;
  schema?: string | undefined;
}): Promise<number> {
  const email = need(values.email, 'treasury-create-hybrid', '--email ADDRESS');
  const owner = values.owner === undefined || values.owner === '' ? undefined : values.owner;
  if (owner !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(owner))
    throw new ConfigError('--owner must be an address: 0x and 40 hex digits');
  // The account is what this prints: the bounded configuration that names it is not needed yet.
  const evm = needEvm(loadConfig({ ...process.env, TREASURY_MODE: 'hot' }).evm);
  const { serviceKeys } = await import('./chain/keys.ts');
  const { createChainClient } = await import('./chain/client.ts');
  const setup = await import('./chain/bounded/bounded-setup.ts');
  const { p256KeyOf } = await import('./chain/bounded/passkey-signature.ts');
  const store = await openConfiguredStore(values.schema);
  try {
    const keys = await setup.enrolledP256Keys(store.db, email, p256KeyOf);
    const deps = {
      client: createChainClient(evm),
      config: evm,
      keys: serviceKeys(evm.mnemonic),
      env: process.env,
    };
    const created = await setup.createHybridAccount(
      deps,
      owner?.toLowerCase() as `0x${string}` | undefined,
      keys,
    );
    return print(
      `the hybrid account ${created.account} signs with ${keys.length} passkey(s) of ${email.trim()}${owner === undefined ? '' : ` and the key of ${owner}`}; add to the configuration:\n${created.lines.join('\n')}`,
    );
  } finally {
    await store.close();
  }
}

function needEvm(evm: Config['evm']): NonNullable<Config['evm']> {
  if (evm === null) throw new ConfigError('this command needs RAIL=evm and its settings');
  return evm;
}

function need(value: string | undefined, command: string, flag: string): string {
  if (value === undefined || value === '') throw new ConfigError(`${command} needs ${flag}`);
  return value;
}

async function verifyAudit(schemaFlag: string | undefined): Promise<number> {
  const { verifyAuditChains } = await import('./services/organizations/audit-log.ts');
  const store = await openConfiguredStore(schemaFlag);
  try {
    const report = await verifyAuditChains(store.db);
    const unchained =
      report.unchained === 0
        ? ''
        : `, ${report.unchained} outside the chain (written by an earlier release during an upgrade)`;
    const summary = `${report.organizations} organizations, ${report.lines} lines, ${report.unknown} with an unknown outcome${unchained}`;
    if (!report.ok) return broken(`audit log BROKEN (${summary})`, report.problems);
    const heads = report.heads.map((h) => `  ${h.organizationId} ${h.seq} ${h.hash}`);
    return print(
      [`audit log OK: ${summary}; every chain links and every outcome is sealed. Heads:`, ...heads].join(
        '\n',
      ),
    );
  } finally {
    await store.close();
  }
}

/** Prints a reset link for the account with `email` (services/identity/password-reset.ts): the operator hands it on. */
async function resetLink(email: string | undefined, schemaFlag: string | undefined): Promise<number> {
  if (email === undefined || email.trim() === '')
    throw new ConfigError('reset-password needs --email ADDRESS');
  const config = loadConfig();
  const { issuePasswordReset } = await import('./services/identity/password-reset.ts');
  const store = await openConfiguredStore(schemaFlag);
  try {
    const issued = await issuePasswordReset(store.db, email, systemClock.nowMs());
    if (issued === null) return broken('reset-password', [`no account has the email ${email.trim()}`]);
    const base = config.publicUrl ?? `http://localhost:${config.port}`;
    const until = new Date(issued.expiresAtMs).toISOString();
    return print(
      `a one-time link that sets a new password for ${email.trim()} (until ${until}; it ends any earlier one):\n` +
        `${base}/reset-password#${issued.token}\n` +
        'Give it to that person only: whoever opens it can set the password (a second factor, if any, still guards the login).',
    );
  } finally {
    await store.close();
  }
}

function broken(title: string, problems: readonly string[]): number {
  process.stderr.write(`${title}:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  return 1;
}

function print(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const message =
      error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
    process.stderr.write(`agent-wallet: ${message}\n`);
    process.exitCode = 1;
  },
);

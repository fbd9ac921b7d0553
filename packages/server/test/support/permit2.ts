// What x402's `upto` scheme needs on chain, on a private anvil: Uniswap's Permit2 at its canonical address and a
// stand-in for x402's upto proxy at its own (both addresses are hard-coded in @x402/evm).
// - Permit2 is compiled from its sources as the npm package @uniswap/v4-periphery ships them (lib/permit2/src),
//   with solc 0.8.17 and Permit2's own foundry.toml settings (via-IR, 1,000,000 optimizer runs, no metadata
//   hash), and sent through anvil's CREATE2 deployer with Permit2's canonical salt: the same init code and salt
//   give the same address as on every public chain, which is checked. Compiling takes a while in solcjs, so the
//   artifact is cached under node_modules/.cache, keyed by the sources' hash; it is never committed.
// - The proxy is TestUptoProxy.sol beside this file, compiled with the repo's solc and installed with
//   anvil_setCode (runtime code only: it keeps everything in constants).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  concatHex,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  parseAbi,
  parseAbiParameters,
  toBytes,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { type Anvil, anvilPublicClient, anvilWalletClient, confirm, DEPLOYER_INDEX, rpc } from './anvil.ts';

export const PERMIT2_ADDRESS = getAddress('0x000000000022D473030F116dDEE9F6B43aC78BA3');
export const UPTO_PROXY_ADDRESS = getAddress('0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002');
/** Anvil's built-in deterministic deployment proxy (the same on every chain): calldata = salt ++ init code. */
const CREATE2_DEPLOYER = getAddress('0x4e59b44847b379578588920cA78FbF26c0B4956C');
/** Permit2's salt, from its script/DeployPermit2.s.sol. */
const PERMIT2_SALT: Hex = '0x0000000000000000000000000000000000000000d3af2663da51c10215000000';
const PERMIT2_SOLC = '0.8.17';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<
    string,
    Record<string, { evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

function compile(
  solc: { compile(input: string, options?: unknown): string },
  input: unknown,
  readImport: (path: string) => string,
): SolcOutput {
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (path: string) => {
        try {
          return { contents: readImport(path) };
        } catch {
          return { error: `not found: ${path}` };
        }
      },
    }),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return output;
}

/**
 * Permit2's init code, compiled once per source tree (cached). As Foundry builds it: every source of src/ and
 * what it imports, given to solc by name (remapped as remappings.txt says), not read through an import callback —
 * solc numbers the syntax tree by the sources it is given, and via-IR's output follows those numbers, so only this
 * reproduces the canonical init code (and address).
 */
function permit2InitCode(): Hex {
  const root = join(dirname(require.resolve('@uniswap/v4-periphery/package.json')), 'lib/permit2');
  const sources = permit2Sources(root);
  const settings = {
    // foundry.toml: via_ir, optimizer_runs = 1000000, bytecode_hash = "none" (and solc 0.8.17's default EVM
    // version, london, as Foundry used).
    viaIR: true,
    optimizer: { enabled: true, runs: 1_000_000 },
    metadata: { bytecodeHash: 'none' },
    remappings: PERMIT2_REMAPPINGS.map(([from, to]) => `${from}=${to}`),
    outputSelection: { 'src/Permit2.sol': { Permit2: ['evm.bytecode.object'] } },
  };
  const key = createHash('sha256').update(`${PERMIT2_SOLC}\n${JSON.stringify(settings)}\n`);
  for (const [path, { content }] of Object.entries(sources)) key.update(`${path}\n${content}\n`);
  const cacheDir = join(here, '../../../../node_modules/.cache/agent-wallet-permit2');
  const cacheFile = join(cacheDir, `${key.digest('hex')}.hex`);
  try {
    return readFileSync(cacheFile, 'utf8').trim() as Hex;
  } catch {}
  const solc = require('solc-0.8.17') as {
    version(): string;
    compile(input: string, options?: unknown): string;
  };
  if (!solc.version().startsWith(`${PERMIT2_SOLC}+`)) throw new Error(`solc-0.8.17 is ${solc.version()}`);
  const output = compile(solc, { language: 'Solidity', sources, settings }, (path) => {
    throw new Error(`Permit2 imports ${path}, which was not given`);
  });
  const code = `0x${output.contracts['src/Permit2.sol']!.Permit2!.evm.bytecode.object}` as Hex;
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cacheFile, code);
  return code;
}

/** Permit2's remappings.txt. */
const PERMIT2_REMAPPINGS: ReadonlyArray<readonly [string, string]> = [['solmate/', 'lib/solmate/']];

/** Every .sol file of src/ and, followed through their imports, of the libraries: by their remapped names. */
function permit2Sources(root: string): Record<string, { content: string }> {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir))
      .sort()
      .flatMap((name) => {
        const path = `${dir}/${name}`;
        if (statSync(join(root, path)).isDirectory()) return walk(path);
        return name.endsWith('.sol') ? [path] : [];
      });
  const resolve = (from: string, imported: string) => {
    if (imported.startsWith('.')) return posix.normalize(posix.join(posix.dirname(from), imported));
    const remapping = PERMIT2_REMAPPINGS.find(([prefix]) => imported.startsWith(prefix));
    return remapping === undefined ? imported : remapping[1] + imported.slice(remapping[0].length);
  };
  const found = new Map<string, string>();
  const queue = walk('src');
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    if (found.has(path)) continue;
    const content = readFileSync(join(root, path), 'utf8');
    found.set(path, content);
    for (const match of content.matchAll(/import\s+(?:[^'"]*from\s+)?["']([^"']+)["']/g))
      queue.push(resolve(path, match[1]!));
  }
  return Object.fromEntries([...found.keys()].sort().map((path) => [path, { content: found.get(path)! }]));
}

const AMOUNT_CHECK = 'if (amount > permit.permitted.amount) revert AmountExceedsPermitted();';

/**
 * The test proxy's runtime code, compiled with the repo's solc (cached the same way). `checksAmount: false`
 * compiles it without its own check of the amount against the permit, so a test can show that Permit2 itself
 * refuses to move more than the signed maximum.
 */
function proxyRuntimeCode(checksAmount = true): Hex {
  const full = readFileSync(join(here, 'TestUptoProxy.sol'), 'utf8');
  if (!full.includes(AMOUNT_CHECK)) throw new Error('TestUptoProxy.sol no longer has its amount check');
  const source = checksAmount ? full : full.replace(AMOUNT_CHECK, '');
  const solc = require('solc') as { version(): string; compile(input: string, options?: unknown): string };
  const settings = {
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { 'TestUptoProxy.sol': { TestUptoProxy: ['evm.deployedBytecode.object'] } },
  };
  const cacheDir = join(here, '../../../../node_modules/.cache/agent-wallet-permit2');
  const key = createHash('sha256')
    .update(`${solc.version()}\n${JSON.stringify(settings)}\n${source}`)
    .digest('hex');
  const cacheFile = join(cacheDir, `proxy-${key}.hex`);
  try {
    return readFileSync(cacheFile, 'utf8').trim() as Hex;
  } catch {}
  const output = compile(
    solc,
    { language: 'Solidity', sources: { 'TestUptoProxy.sol': { content: source } }, settings },
    () => {
      throw new Error('no imports');
    },
  );
  const code =
    `0x${output.contracts['TestUptoProxy.sol']!.TestUptoProxy!.evm.deployedBytecode.object}` as Hex;
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cacheFile, code);
  return code;
}

/** Where CREATE2 through the deployer puts `initCode` with `salt`. */
export function create2Address(salt: Hex, initCode: Hex): Address {
  const hash = keccak256(concatHex(['0xff', CREATE2_DEPLOYER, salt, keccak256(initCode)]));
  return getAddress(`0x${hash.slice(-40)}`);
}

/** Permit2's EIP-712 domain separator at `address` (name "Permit2", no version). */
function permit2DomainSeparator(chainId: number, address: Address): Hex {
  return keccak256(
    encodeAbiParameters(parseAbiParameters('bytes32, bytes32, uint256, address'), [
      keccak256(toBytes('EIP712Domain(string name,uint256 chainId,address verifyingContract)')),
      keccak256(toBytes('Permit2')),
      BigInt(chainId),
      address,
    ]),
  );
}

/**
 * Deploys Permit2 through the CREATE2 deployer with its canonical salt — it lands at its canonical address, which
 * is checked — and installs the upto proxy at its own. Idempotent on a chain that has them already.
 */
export async function deployUptoContracts(anvil: Anvil): Promise<void> {
  const initCode = permit2InitCode();
  const landed = create2Address(PERMIT2_SALT, initCode);
  if (landed !== PERMIT2_ADDRESS)
    throw new Error(`Permit2 built here would land at ${landed}, not ${PERMIT2_ADDRESS}: the build differs`);
  const deployer = mnemonicToAccount(anvil.mnemonic, { addressIndex: DEPLOYER_INDEX });
  const wallet = anvilWalletClient(anvil, deployer);
  const publicClient = anvilPublicClient(anvil);
  // Deployed already (a local chain used before): CREATE2 cannot deploy twice at one address.
  const existing = await publicClient.getCode({ address: PERMIT2_ADDRESS });
  if (existing === undefined || existing.length <= 2) {
    const data = concatHex([PERMIT2_SALT, initCode]);
    const hash = await wallet.sendTransaction({ to: CREATE2_DEPLOYER, data });
    await confirm(publicClient, hash, 'Permit2 deployment');
  }
  const separator = await publicClient.readContract({
    address: PERMIT2_ADDRESS,
    abi: parseAbi(['function DOMAIN_SEPARATOR() view returns (bytes32)']),
    functionName: 'DOMAIN_SEPARATOR',
  });
  if (separator !== permit2DomainSeparator(anvil.chainId, PERMIT2_ADDRESS))
    throw new Error('Permit2 at its canonical address answers another domain separator');
  await installUptoProxy(anvil, { checksAmount: true });
}

/** (Re)installs the upto proxy at its canonical address; it keeps no state, so swapping its code is safe. */
export async function installUptoProxy(anvil: Anvil, options: { checksAmount: boolean }): Promise<void> {
  await rpc(anvil, 'anvil_setCode', [UPTO_PROXY_ADDRESS, proxyRuntimeCode(options.checksAmount)]);
}

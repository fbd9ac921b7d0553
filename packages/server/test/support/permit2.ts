// What x402's `upto` scheme needs on chain, on a private anvil: Uniswap's Permit2 at its canonical address and a
// stand-in for x402's upto proxy at its own (both addresses are hard-coded in @x402/evm).
// - Permit2 is compiled from its sources as the npm package @uniswap/v4-periphery ships them (lib/permit2/src),
//   with solc 0.8.17 and Permit2's own foundry.toml settings (via-IR, 1,000,000 optimizer runs, no metadata
//   hash), and sent through anvil's CREATE2 deployer with Permit2's canonical salt (see deployUptoContracts for
//   where it lands and how it comes to answer at the canonical address). Compiling takes a while in solcjs, so the
//   artifact is cached under node_modules/.cache, keyed by the sources' hash; it is never committed.
// - The proxy is TestUptoProxy.sol beside this file, compiled with the repo's solc and installed with
//   anvil_setCode (runtime code only: it keeps everything in constants).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

/** Permit2's init code, compiled once per source tree (cached). */
function permit2InitCode(): Hex {
  const root = join(dirname(require.resolve('@uniswap/v4-periphery/package.json')), 'lib/permit2');
  const solmate = join(root, 'lib/solmate');
  const readImport = (path: string) =>
    readFileSync(
      path.startsWith('solmate/') ? join(solmate, path.slice('solmate/'.length)) : join(root, path),
      'utf8',
    );
  const entry = 'src/Permit2.sol';
  const settings = {
    // foundry.toml: via_ir, optimizer_runs = 1000000, bytecode_hash = "none" (Foundry's default EVM version for
    // 0.8.17 is london).
    viaIR: true,
    optimizer: { enabled: true, runs: 1_000_000 },
    metadata: { bytecodeHash: 'none' },
    evmVersion: 'london',
    outputSelection: { [entry]: { Permit2: ['evm.bytecode.object'] } },
  };
  const toml = readFileSync(join(root, 'foundry.toml'), 'utf8');
  const key = createHash('sha256');
  key.update(`${PERMIT2_SOLC}\n${JSON.stringify(settings)}\n${toml}\n`);
  for (const path of PERMIT2_SOURCES) key.update(`${path}\n${readImport(path)}\n`);
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
  const output = compile(
    solc,
    { language: 'Solidity', sources: { [entry]: { content: readImport(entry) } }, settings },
    readImport,
  );
  const code = `0x${output.contracts[entry]!.Permit2!.evm.bytecode.object}` as Hex;
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cacheFile, code);
  return code;
}

/** The sources Permit2 is built from (what the cache key covers; a file gone from the package fails the build). */
const PERMIT2_SOURCES = [
  'src/Permit2.sol',
  'src/SignatureTransfer.sol',
  'src/AllowanceTransfer.sol',
  'src/EIP712.sol',
  'src/PermitErrors.sol',
  'src/libraries/PermitHash.sol',
  'src/libraries/SignatureVerification.sol',
  'src/libraries/Allowance.sol',
  'src/libraries/SafeCast160.sol',
  'src/interfaces/ISignatureTransfer.sol',
  'src/interfaces/IAllowanceTransfer.sol',
  'src/interfaces/IEIP712.sol',
  'src/interfaces/IERC1271.sol',
  'solmate/src/tokens/ERC20.sol',
  'solmate/src/utils/SafeTransferLib.sol',
] as const;

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
 * Deploys Permit2 through the CREATE2 deployer with its canonical salt and makes it answer at its canonical
 * address, then installs the upto proxy at its own. Built from the sources npm ships (a later state of the Permit2
 * repository than the one deployed on public chains), the init code is not the canonical one byte for byte, so
 * CREATE2 puts it elsewhere: its runtime code is then copied to the canonical address with its one address-bound
 * immutable, the cached EIP-712 domain separator, recomputed for that address (checked through DOMAIN_SEPARATOR())
 * — it answers there as a deployment at that address would. Returns where CREATE2 put it.
 */
export async function deployUptoContracts(anvil: Anvil): Promise<{ create2Address: Address }> {
  const initCode = permit2InitCode();
  const landed = create2Address(PERMIT2_SALT, initCode);
  const deployer = mnemonicToAccount(anvil.mnemonic, { addressIndex: DEPLOYER_INDEX });
  const wallet = anvilWalletClient(anvil, deployer);
  const publicClient = anvilPublicClient(anvil);
  // Deployed already (a local chain used before): CREATE2 cannot deploy twice at one address.
  const existing = await publicClient.getCode({ address: landed });
  if (existing === undefined || existing.length <= 2) {
    const data = concatHex([PERMIT2_SALT, initCode]);
    const hash = await wallet.sendTransaction({ to: CREATE2_DEPLOYER, data });
    await confirm(publicClient, hash, 'Permit2 deployment');
  }
  const code = await publicClient.getCode({ address: landed });
  if (code === undefined || code.length <= 2) throw new Error(`Permit2 is not at ${landed}`);
  if (landed !== PERMIT2_ADDRESS) {
    const cached = permit2DomainSeparator(anvil.chainId, landed).slice(2);
    const wanted = permit2DomainSeparator(anvil.chainId, PERMIT2_ADDRESS).slice(2);
    if (!code.includes(cached)) throw new Error('the deployed Permit2 does not hold its domain separator');
    await rpc(anvil, 'anvil_setCode', [PERMIT2_ADDRESS, code.replaceAll(cached, wanted)]);
  }
  const separator = await publicClient.readContract({
    address: PERMIT2_ADDRESS,
    abi: parseAbi(['function DOMAIN_SEPARATOR() view returns (bytes32)']),
    functionName: 'DOMAIN_SEPARATOR',
  });
  if (separator !== permit2DomainSeparator(anvil.chainId, PERMIT2_ADDRESS))
    throw new Error('Permit2 at its canonical address answers another domain separator');
  await installUptoProxy(anvil, { checksAmount: true });
  return { create2Address: landed };
}

/** (Re)installs the upto proxy at its canonical address; it keeps no state, so swapping its code is safe. */
export async function installUptoProxy(anvil: Anvil, options: { checksAmount: boolean }): Promise<void> {
  await rpc(anvil, 'anvil_setCode', [UPTO_PROXY_ADDRESS, proxyRuntimeCode(options.checksAmount)]);
}

#!/usr/bin/env node
// Compiles packages/server/contracts/TestUSDC.sol with the pinned solc npm package and writes the artifact the
// on-chain tests deploy (contracts/artifacts/TestUSDC.json). The artifact is committed so tests need no
// compiler at run time; rerun this after editing the contract:
//
//   node packages/server/scripts/build-contracts.ts
//
// Output is deterministic (fixed source key, no metadata hash, stable key order) so a rebuild of an unchanged
// contract leaves git clean.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import solc from 'solc';

const CONTRACT = 'TestUSDC';
const EXPECTED_SOLC = '0.8.37';
const SOURCE_FILE = resolve(import.meta.dirname, `../contracts/${CONTRACT}.sol`);
const ARTIFACT_FILE = resolve(import.meta.dirname, `../contracts/artifacts/${CONTRACT}.json`);

interface CompilerMessage {
  severity: 'error' | 'warning' | 'info';
  formattedMessage?: string;
  message: string;
}

interface CompilerOutput {
  errors?: CompilerMessage[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

function compile(source: string): CompilerOutput {
  const input = {
    language: 'Solidity',
    // The key is part of the compiled metadata: a fixed name (not an absolute path) keeps builds identical
    // across machines and checkouts.
    sources: { [`${CONTRACT}.sol`]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      // No IPFS hash appended to the bytecode: comment-only edits then leave the artifact unchanged.
      metadata: { bytecodeHash: 'none' },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const compileStandard = solc.compile as (json: string) => string;
  return JSON.parse(compileStandard(JSON.stringify(input))) as CompilerOutput;
}

function main(): void {
  const version = String(solc.version());
  if (!version.startsWith(`${EXPECTED_SOLC}+`)) {
    throw new Error(`expected solc ${EXPECTED_SOLC}, the installed solc package is ${version}`);
  }
  const output = compile(readFileSync(SOURCE_FILE, 'utf8'));
  const messages = output.errors ?? [];
  for (const m of messages) process.stderr.write(`${m.formattedMessage ?? m.message}\n`);
  const errors = messages.filter((m) => m.severity === 'error');
  if (errors.length > 0) throw new Error(`solc reported ${errors.length} error(s) compiling ${SOURCE_FILE}`);

  const compiled = output.contracts?.[`${CONTRACT}.sol`]?.[CONTRACT];
  const bytecode = compiled?.evm.bytecode.object ?? '';
  if (compiled === undefined || !/^[0-9a-f]+$/.test(bytecode)) {
    throw new Error(`solc produced no bytecode for ${CONTRACT}`);
  }
  const artifact = {
    contractName: CONTRACT,
    compiler: `solc ${EXPECTED_SOLC}`,
    abi: compiled.abi,
    bytecode: `0x${bytecode}`,
  };
  mkdirSync(dirname(ARTIFACT_FILE), { recursive: true });
  writeFileSync(ARTIFACT_FILE, `${JSON.stringify(artifact, null, 2)}\n`);
  process.stdout.write(`wrote ${ARTIFACT_FILE} (${bytecode.length / 2} bytes of init code)\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`build-contracts: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

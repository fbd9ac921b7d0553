// The README's two commands on the machine as it comes: when the running Node is older than the project needs
// (Debian 12 and Ubuntu 24.04 ship 18, this project's machines 20), fetch Node 24 from the npm registry once
// into $HOME/.cache/node24 (what .ci/run uses too) and run the same script again under it, with its bin folder
// first on PATH so that npm, Vite and every child (the server, the stdio bridge, the tests) use it as well.
// Signals reach the re-run script (and it forwards them to what it starts), so stopping what the README
// started stops the server. Plain JavaScript that any Node from 16 parses; no dependencies.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const NODE_MIN = [22, 18];
export const NODE_CACHE_DIR = process.env.AGENT_WALLET_NODE_DIR ?? join(homedir(), '.cache', 'node24');
const CACHED_NODE_BIN = join(NODE_CACHE_DIR, 'node_modules', '.bin');
const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'];
/** How often a runner looks whether it was orphaned (its parent shell killed): the delay a stop may take. */
const ORPHAN_CHECK_MS = 200;

/** Pure: is this `process.versions.node` new enough? */
export function isSuitable(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > NODE_MIN[0] || (major === NODE_MIN[0] && minor >= NODE_MIN[1]);
}

function versionOf(nodePath) {
  const run = spawnSync(nodePath, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : '';
}

/** A Node binary the project can run on: the cached Node 24, installed from the npm registry when missing. */
export function cachedNode() {
  const node = join(CACHED_NODE_BIN, 'node');
  if (existsSync(node) && isSuitable(versionOf(node))) return node;
  process.stderr.write(
    `this is Node ${process.version}; the project needs ${NODE_MIN.join('.')} or newer: installing Node 24 from the npm registry into ${NODE_CACHE_DIR} (once)\n`,
  );
  const npm = process.env.npm_execpath;
  const [command, prefixArgs] = npm?.endsWith('.js') ? [process.execPath, [npm]] : ['npm', []];
  const install = spawnSync(
    command,
    [...prefixArgs, 'install', '--prefix', NODE_CACHE_DIR, '--no-audit', '--no-fund', '--no-save', 'node@24'],
    { stdio: ['ignore', 'ignore', 'inherit'], env: withoutNpmConfig(process.env) },
  );
  if (install.status !== 0 || !existsSync(node) || !isSuitable(versionOf(node))) {
    process.stderr.write(
      `could not install Node 24 into ${NODE_CACHE_DIR}; install Node ${NODE_MIN.join('.')}+ (https://nodejs.org, or nvm install 24) and run the command again\n`,
    );
    process.exit(1);
  }
  return node;
}

/** npm passes its own settings down as npm_config_*; an install of Node must not inherit the project's. */
function withoutNpmConfig(env) {
  const clean = {};
  for (const [name, value] of Object.entries(env)) if (!name.startsWith('npm_config_')) clean[name] = value;
  return clean;
}

/** The environment a child runs in: the chosen Node's folder first on PATH. */
export function envWith(node, env = process.env) {
  return { ...env, PATH: `${dirname(node)}:${env.PATH ?? ''}` };
}

/**
 * Runs `command` with `args` as a child that gets this process's signals, and ends this process the way the
 * child ended (its exit code, or the signal that killed it). Never returns.
 */
export function runForwarding(command, args, options = {}) {
  const child = spawn(command, args, { stdio: 'inherit', ...options });
  for (const signal of FORWARDED_SIGNALS) process.on(signal, () => child.kill(signal));
  // npm runs a script under `sh -c`, and a SIGTERM to npm ends that shell without passing it on: this process is
  // then an orphan (its parent changes). Treat that as the SIGTERM it was meant to get.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphanWatch);
    child.kill('SIGTERM');
  }, ORPHAN_CHECK_MS);
  child.on('error', (error) => {
    process.stderr.write(`could not start ${command}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    clearInterval(orphanWatch);
    if (signal !== null) {
      for (const s of FORWARDED_SIGNALS) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
  return new Promise(() => {});
}

/**
 * On a suitable Node, returns. Otherwise runs `script` again under the cached Node 24 (installing it first)
 * and never returns.
 */
export async function onSuitableNode(script, args = process.argv.slice(2)) {
  if (isSuitable(process.versions.node)) return;
  const node = cachedNode();
  await runForwarding(node, [...process.execArgv, script, ...args], { env: envWith(node) });
}

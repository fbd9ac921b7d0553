// Runs one test file in a process group of its own, with a hard time limit. The result says what passed,
// what failed, which tests never finished when the limit killed the file, and which handles it left open.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tallyEvents } from './tally.mjs';

const OUTPUT_TAIL_CHARS = 16_000;
const here = new URL('.', import.meta.url);
const live = new Set();

/** Kills every file still running (the runner was interrupted): no test process outlives the runner. */
export function killAll() {
  for (const child of live) killGroup(child);
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** @returns {Promise<{file, counts, failures, durationMs, output}>} */
export async function runFile(file, { timeoutMs }) {
  const dir = mkdtempSync(join(tmpdir(), 'test-file-'));
  const eventsFile = join(dir, 'events.ndjson');
  const guardFile = join(dir, 'guard.json');
  const startedMs = Date.now();
  try {
    const exit = await spawnTestProcess(file, { eventsFile, guardFile, timeoutMs });
    const events = readLines(eventsFile);
    const leaked = readJson(guardFile)?.leaked ?? [];
    const tally = tallyEvents(events, { file, exit, leaked, timeoutMs });
    return { file, ...tally, durationMs: Date.now() - startedMs, output: exit.output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function spawnTestProcess(file, { eventsFile, guardFile, timeoutMs }) {
  const args = [
    '--import',
    new URL('guard.mjs', here).href,
    '--test-force-exit',
    `--test-reporter=${new URL('reporter.mjs', here).href}`,
    `--test-reporter-destination=${eventsFile}`,
    file,
  ];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TEST_GUARD_REPORT_FILE: guardFile },
  });
  live.add(child);
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      // The file's own children (servers it started) go with it, whatever happened.
      killGroup(child);
      resolve({ code, signal, timedOut, output });
    });
  });
}

function readLines(path) {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const events = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // a line cut short by a kill
    }
  }
  return events;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

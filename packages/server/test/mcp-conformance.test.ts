// MCP by the spec: the official conformance suite (@modelcontextprotocol/conformance) against the real server
// run as `agent-wallet serve`. The suite sends no Authorization header, so a small local front adds the agent's
// API key and forwards everything else untouched — the Host and Origin headers included, so the server's own
// DNS-rebinding check (a loopback server refuses a Host that does not name this machine) is what the
// dns-rebinding-protection scenario meets.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { fundedAgentKey } from './support/service-http.ts';

const execFileAsync = promisify(execFile);
const CONFORMANCE = resolve(import.meta.dirname, '../../../node_modules/.bin/conformance');
// Every server scenario of 0.1.16 (all of them on 2025-06-18/2025-11-25; it has none for 2026-07-28) that does not
// need the suite's fixture server: the others call tools, prompts and resources only it has (test_image_content,
// test://static-text), or capabilities this server does not offer (logging, completions, subscriptions, sampling,
// elicitation, SSE sessions).
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-error',
  'resources-list',
  'dns-rebinding-protection',
] as const;

/** Forwards every request to the service with the API key added; nothing else is changed. */
function startFront(target: URL, apiKey: string): Promise<Server> {
  const front = createServer((req, res) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${apiKey}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((done) => front.listen(0, '127.0.0.1', () => done(front)));
}

describe('MCP conformance suite', () => {
  let service: ServiceProcess;
  let front: Server;
  let resultsDir: string;

  before(async () => {
    service = await startServiceProcess({ RATE_LIMITS: GENEROUS_RATE_LIMITS });
    const key = await fundedAgentKey(service.url, 'conformance@example.test');
    front = await startFront(new URL(service.url), key);
    resultsDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  });
  after(async () => {
    await new Promise<void>((done) => (front ? front.close(() => done()) : done()));
    await service?.stop();
    if (resultsDir !== undefined) rmSync(resultsDir, { recursive: true, force: true });
  });

  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      const { port } = front.address() as AddressInfo;
      // Asynchronously: the front runs in this process and must keep answering while the suite runs.
      const run = await execFileAsync(
        CONFORMANCE,
        [
          'server',
          '--url',
          `http://localhost:${port}/mcp`,
          '--scenario',
          scenario,
          '--output-dir',
          resultsDir,
        ],
        { cwd: resultsDir, encoding: 'utf8', timeout: 60_000 },
      ).then(
        (done) => ({ ...done, status: 0 }),
        (error: { stdout?: string; stderr?: string; code?: number }) => ({
          stdout: error.stdout ?? '',
          stderr: error.stderr ?? '',
          status: error.code ?? 1,
        }),
      );
      const checks = checksOf(resultsDir, scenario);
      const failed = checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');
      assert.ok(checks.length > 0, `no checks ran:\n${run.stdout}\n${run.stderr}`);
      assert.deepEqual(
        failed.map((c) => `${c.id}: ${c.errorMessage ?? c.status}`),
        [],
        `${scenario}:\n${run.stdout}`,
      );
      assert.equal(run.status, 0, run.stdout + run.stderr);
    });
  }
});

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function checksOf(dir: string, scenario: string): Check[] {
  const results = dir;
  const runs = readdirSync(results, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.includes(scenario))
    .map((d) => d.name)
    .sort();
  const latest = runs.at(-1);
  if (latest === undefined) return [];
  return JSON.parse(readFileSync(join(results, latest, 'checks.json'), 'utf8')) as Check[];
}

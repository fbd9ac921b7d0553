#!/usr/bin/env node
// The OpenAPI document exactly as a default (sandbox, SQLite) server publishes it at /api/v1/openapi.json, built
// in-process on a throwaway data directory; with `everyRail`, the evm rail's own operations added and marked
// (src/app/openapi-rails.ts), as the SDK's wire types are generated from it (packages/sdk/scripts/generate-wire.ts).
// Run directly it prints the served document; with --every-rail, the other.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { everyRailDocument } from '../src/app/openapi-rails.ts';
import { ManualClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createServer } from '../src/server.ts';

export async function openapiDocument(
  options: { everyRail?: boolean } = {},
): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-openapi-'));
  const server = await createServer(loadConfig({ DATA_DIR: dataDir }), {
    clock: new ManualClock(0),
    logLevel: false,
    backgroundIntervalMs: null,
  });
  try {
    await server.app.ready();
    const answer = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const served = JSON.parse(answer.body) as Record<string, unknown>;
    return options.everyRail === true ? await everyRailDocument(served, server.services) : served;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const everyRail = process.argv.includes('--every-rail');
  process.stdout.write(`${JSON.stringify(await openapiDocument({ everyRail }), null, 2)}\n`);
}

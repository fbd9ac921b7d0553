// Serves the built dashboard (packages/dashboard/dist) at `/`, with the SPA fallback for client-side routes.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface Dashboard {
  servesPath(request: FastifyRequest): boolean;
  sendIndex(reply: FastifyReply): FastifyReply;
}

// `/.well-known/` too: a client probing for metadata (OAuth, RFC 8615) gets a JSON 404, never the dashboard's page.
const API_PREFIXES = ['/api/', '/mcp', '/.well-known/'];

export async function registerDashboard(app: FastifyInstance, dir: string | undefined): Promise<Dashboard> {
  if (dir === undefined) return { servesPath: () => false, sendIndex: (reply) => reply };
  const indexHtml = await readFile(join(dir, 'index.html'));
  await app.register(fastifyStatic, {
    root: dir,
    index: false,
    wildcard: true,
    // Hashed asset names never change content: cache them for a year; index.html is revalidated.
    setHeaders: (reply, path) => {
      const immutable = path.startsWith(join(dir, 'assets'));
      reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const sendIndex = (reply: FastifyReply) =>
    reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(indexHtml);
  app.get('/', { schema: { hide: true }, config: { auth: 'none' } }, (_request, reply) => sendIndex(reply));
  return { servesPath: isDashboardRequest, sendIndex };
}

/** A GET or HEAD outside the API: a dashboard file, or a client-side route answered with index.html. */
export function isDashboardRequest(request: FastifyRequest): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    !API_PREFIXES.some((prefix) => request.url.startsWith(prefix))
  );
}

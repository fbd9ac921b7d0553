// The OpenAPI document of every rail at once, for generated clients (the SDK's wire types): the document a
// sandbox server serves, plus the operations only an evm server has. A server registers, and so documents, only
// its own rail's routes — GET /api/v1/openapi.json is unchanged by this, and a client reading it is never told of a
// route that answers 404 there. A generated client, though, must type every route it may call. The evm routes'
// schemas are static zod, so documenting them needs no chain: they are registered on a Fastify instance of their
// own, which never listens and never runs a handler, and their operations are copied in, each marked
// `x-rail: evm` and told so in its description. The sandbox's own (POST /api/v1/wallet/sandbox/deposit) is marked
// `x-rail: sandbox`.
import fastifySwagger from '@fastify/swagger';
import Fastify from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { toFastifyRoute } from '../http/route.ts';
import { successEnvelope } from '../http/schemas.ts';
import { EVM_ONLY_ROUTES, OPERATION_IDS, SANDBOX_ONLY_ROUTES } from '../routes/index.ts';
import type { Services } from '../services/index.ts';
import { openApiOptions } from './app.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON
type Json = any;

/** What each evm-only operation's description says first, unless it says so already. */
export const EVM_ONLY_NOTE = '`evm` rail only; 404 on a sandbox server.';

/**
 * `served`: the document of a sandbox server (its GET /api/v1/openapi.json). `services`: that server's, only
 * handed to the route definitions, whose handlers never run here. Returns a new document; `served` is unchanged.
 */
export async function everyRailDocument(served: Json, services: Services): Promise<Json> {
  if (services.config.rail !== 'sandbox')
    throw new Error('the every-rail document starts from a sandbox one');
  const document = structuredClone(served);
  for (const operation of operationsOf(document.paths)) {
    if (SANDBOX_ONLY_OPERATIONS.has(operation.operationId)) operation['x-rail'] = 'sandbox';
  }
  const evm = await evmOnlyDocument(services);
  for (const [path, item] of Object.entries<Json>(evm.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (document.paths[path]?.[method] !== undefined)
        throw new Error(`${method.toUpperCase()} ${path} is documented on both rails`);
      document.paths[path] = { ...document.paths[path], [method]: markedEvmOnly(operation) };
    }
  }
  const schemas = Object.keys(evm.components?.schemas ?? {});
  if (schemas.length > 0)
    throw new Error(`shared schemas of the evm routes are not merged: ${schemas.join(', ')}`);
  return document;
}

const SANDBOX_ONLY_OPERATIONS = new Set([...SANDBOX_ONLY_ROUTES].map((route) => OPERATION_IDS.get(route)));

function* operationsOf(paths: Json): Generator<Json> {
  for (const item of Object.values<Json>(paths ?? {})) yield* Object.values<Json>(item);
}

/** The evm-only routes documented exactly as an evm server's app documents them (same frame, same last pass). */
async function evmOnlyDocument(services: Services): Promise<Json> {
  const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(fastifySwagger, openApiOptions('evm'));
  for (const route of EVM_ONLY_ROUTES)
    app.route(toFastifyRoute(route, services, successEnvelope, OPERATION_IDS.get(route)));
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}

function markedEvmOnly(operation: Json): Json {
  const description: string = operation.description ?? '';
  const says = /`?evm`? rail only/i.test(description);
  return {
    ...operation,
    description: says ? description : `${EVM_ONLY_NOTE} ${description}`.trim(),
    'x-rail': 'evm',
  };
}

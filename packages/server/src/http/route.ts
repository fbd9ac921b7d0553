// One route = one file holding its schema, handler and OpenAPI description (Unkey's layout). A route returns
// plain data; this helper wraps it in the success envelope and sets the status.
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler, RouteOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { type Role, rolesAllowed } from '../domain/organizations/roles.ts';
import { AppError, assert } from '../errors.ts';
import type { StepUpRule } from '../services/identity/auth.ts';
import type { FaceServices } from '../services/index.ts';
import type { AuditOutcomeInput, BegunAuditLine } from '../services/organizations/audit-log.ts';
import { failureEnvelope } from './schemas.ts';

export type AuthMode = 'none' | 'user' | 'apiKey';

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  request: FastifyRequest;
  reply: FastifyReply;
  services: FaceServices;
}

export interface RouteResult<T> {
  status?: number;
  data: T;
  headers?: Record<string, string>;
  /** Extra top-level fields of the envelope (tool responses carry `tool`). */
  envelope?: Record<string, unknown>;
  /** What the audit log records of a session write, beyond the route's params and the answer. */
  audit?: { before?: unknown; after?: unknown; walletId?: string; target?: string };
}

export interface RouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  auth: AuthMode;
  /**
   * Step-up (contract section 8), with auth 'user': the session must have proven presence within
   * STEP_UP_MAX_AGE_SECONDS — 'always', or 'withFactor' only for users with a second factor — else 403
   * STEP_UP_REQUIRED before the handler runs, so nothing changes.
   */
  stepUp?: StepUpRule;
  /**
   * With auth 'user', required: the least role of the organization's member that may use the route (roles nest:
   * viewer < approver < admin < owner). Refused with 403 FORBIDDEN_ROLE in onRequest, before anything runs.
   */
  role?: Role;
  /** Open to a member who must still enrol a second factor under the organization's requireMfa. */
  mfaEnrolment?: true;
  /** A session route that is not a GET but changes nothing worth a line of the audit log (a simulation). */
  audited?: false;
  /**
   * The rule for this request, when it depends on what the request does (a policy change that loosens it, an
   * invitation as owner): null asks for nothing. Runs after validation; never asks more than `stepUp`, which is
   * what the route documents.
   */
  stepUpWhen?: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<StepUpRule | null>;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** The handler validates the body itself (a tool call's params depend on the tool named in the path). */
  bodyValidatedByHandler?: true;
  /**
   * The body as the OpenAPI document shows it, never used to validate: with bodyValidatedByHandler, or beside
   * `body` where zod's JSON Schema cannot say what the validation does (a rule across fields).
   */
  documentedBody?: z.ZodType;
  /** Documented success data (the envelope's `data`), for the OpenAPI document only. */
  response?: z.ZodType;
  successStatus?: number;
  /** Other successes the handler may answer (its result's `status`), each with its documented data. */
  otherSuccesses?: Record<number, { description: string; data: z.ZodType }>;
  handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<RouteResult<R>>;
}

export interface RouteModule {
  definition: RouteDefinition<z.ZodType, z.ZodType, z.ZodType, unknown>;
}

export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R>(
  definition: RouteDefinition<P, Q, B, R>,
): RouteDefinition<z.ZodType, z.ZodType, z.ZodType, unknown> {
  return definition as unknown as RouteDefinition<z.ZodType, z.ZodType, z.ZodType, unknown>;
}

function refuseBodyFields(body: unknown): void {
  if (body === undefined) return;
  const isPlainObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (isPlainObject && Object.keys(body).length === 0) return;
  const what = isPlainObject
    ? `unknown field${Object.keys(body).length === 1 ? '' : 's'} ${Object.keys(body).slice(0, 5).join(', ')}`
    : `a JSON ${body === null ? 'null' : Array.isArray(body) ? 'array' : typeof body}`;
  throw new AppError('VALIDATION_ERROR', `body: this endpoint takes no body fields, got ${what}`);
}

/**
 * For a route whose documented body is not its validating one: params and query as usual; the body by `body`
 * when there is one, else passed through to the handler, which validates it.
 */
function documentedBodyCompiler(validating: z.ZodType | undefined): FastifySchemaCompiler<z.ZodType> {
  return (route) => {
    if (route.httpPart !== 'body') return validatorCompiler(route);
    if (validating === undefined) return (data: unknown) => ({ value: data });
    return validatorCompiler({ ...route, schema: validating });
  };
}

const SECURITY: Record<AuthMode, Array<Record<string, string[]>>> = {
  none: [],
  user: [{ userJwt: [] }],
  apiKey: [{ agentApiKey: [] }],
};

const STEP_UP_NOTES: Record<StepUpRule, string> = {
  always: 'Step-up: always (403 STEP_UP_REQUIRED without a recent proof of presence).',
  withFactor: 'Step-up: when the user has a second factor active (403 STEP_UP_REQUIRED).',
};
const STEP_UP_SOME_NOTES: Record<StepUpRule, string> = {
  always: 'Step-up: for the requests the description names, always (403 STEP_UP_REQUIRED).',
  withFactor:
    'Step-up: for the requests the description names, when the user has a second factor active (403 STEP_UP_REQUIRED).',
};

/** How strong a rule is: a request's own rule may never ask more than the route declares. */
const STEP_UP_STRENGTH: Record<StepUpRule, number> = { withFactor: 1, always: 2 };

/** The OpenAPI description: the route's own, and what it needs of the session (role, step-up). */
function describeRoute(definition: RouteDefinition<z.ZodType, z.ZodType, z.ZodType, unknown>) {
  const notes = [
    definition.description,
    definition.role === undefined ? undefined : `Role: ${rolesAllowed(definition.role).join(', ')}.`,
    definition.stepUp === undefined
      ? undefined
      : (definition.stepUpWhen === undefined ? STEP_UP_NOTES : STEP_UP_SOME_NOTES)[definition.stepUp],
  ].filter((note) => note !== undefined);
  return notes.length === 0 ? undefined : notes.join(' ');
}

/** The one place step-up is enforced: before the handler, after the body is known to be valid. */
async function requireStepUp(
  definition: RouteDefinition<z.ZodType, z.ZodType, z.ZodType, unknown>,
  input: HandlerInput<unknown, unknown, unknown>,
): Promise<void> {
  const user = input.request.user;
  if (user === null || definition.stepUp === undefined)
    throw new AppError('UNAUTHORIZED', 'a session is required');
  const rule = definition.stepUpWhen === undefined ? definition.stepUp : await definition.stepUpWhen(input);
  if (rule === null) return;
  assert(
    STEP_UP_STRENGTH[rule] <= STEP_UP_STRENGTH[definition.stepUp],
    `${definition.method} ${definition.url}: a request's step-up never exceeds the route's declared one`,
  );
  await input.services.auth.requireStepUp(user, rule);
}

function isAuditedWrite(definition: RouteDefinition<z.ZodType, z.ZodType, z.ZodType, unknown>): boolean {
  return definition.auth === 'user' && definition.method !== 'GET' && definition.audited !== false;
}

/**
 * The one place every session write is recorded (contract section 9), written ahead (services/audit.ts): the
 * line's intent is in the chain before the handler runs — a write whose line cannot be written does not run —
 * and its outcome (target, answer without secrets, or the refusal) is sealed after. A crash between leaves the
 * line with an unknown outcome; nothing that ran is missing from the log.
 */
async function runAudited(
  input: HandlerInput<unknown, unknown, unknown>,
  handler: () => Promise<RouteResult<unknown>>,
  action: string,
): Promise<RouteResult<unknown>> {
  const user = input.request.user;
  if (user === null) return handler();
  const { audit, clock } = input.services;
  const line = await audit.begin({
    organizationId: user.organizationId,
    actor: { type: 'member', id: user.userId },
    action,
    nowMs: clock.nowMs(),
  });
  let result: RouteResult<unknown>;
  try {
    result = await handler();
  } catch (error) {
    const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
    await sealAudit(input, line, {
      ...auditPlace(input, undefined),
      outcome: 'refused',
      before: null,
      after: { code },
    });
    throw error;
  }
  await sealAudit(input, line, {
    ...auditPlace(input, result),
    outcome: 'completed',
    before: result.audit?.before ?? null,
    after: result.audit?.after ?? result.data ?? null,
  });
  return result;
}

/** A line that cannot be sealed keeps its unknown outcome: the write happened and is not undone for it. */
async function sealAudit(
  input: HandlerInput<unknown, unknown, unknown>,
  line: BegunAuditLine,
  outcome: AuditOutcomeInput,
) {
  try {
    await input.services.audit.complete(line, outcome);
  } catch (error) {
    input.request.log.error(
      { err: error, auditId: line.id },
      'an audit line could not be sealed: its outcome stays unknown',
    );
  }
}

/** What a write acted on: the route's answer's own words, else its path's ids, else the created id. */
function auditPlace(
  input: HandlerInput<unknown, unknown, unknown>,
  result: RouteResult<unknown> | undefined,
) {
  const params = (input.params ?? {}) as Record<string, unknown>;
  const data = result?.data as Record<string, unknown> | undefined;
  const named = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const target =
    result?.audit?.target ??
    named(params.transactionId) ??
    named(params.keyId) ??
    named(params.policyId) ??
    named(params.deliveryId) ??
    named(params.id) ??
    named(data?.id) ??
    named(params.walletId) ??
    null;
  return { target, walletId: result?.audit?.walletId ?? named(params.walletId) ?? null };
}

export function toFastifyRoute(
  definition: RouteDefinition<z.ZodType, z.ZodType, z.ZodType, unknown>,
  services: FaceServices,
  envelopeOf: (data: z.ZodType) => z.ZodType,
  operationId?: string,
): RouteOptions {
  const status = definition.successStatus ?? 200;
  // A session route without a role would be refused at every call: refuse it at start instead.
  if ((definition.auth === 'user') !== (definition.role !== undefined))
    throw new Error(
      `${definition.method} ${definition.url}: a role is declared by session routes, and only by them`,
    );
  return {
    method: definition.method,
    url: definition.url,
    config: {
      auth: definition.auth,
      ...(definition.role === undefined ? {} : { role: definition.role }),
      ...(definition.mfaEnrolment === undefined ? {} : { mfaEnrolment: true }),
    },
    schema: {
      ...(operationId === undefined ? {} : { operationId }),
      summary: definition.summary,
      ...(describeRoute(definition) === undefined ? {} : { description: describeRoute(definition) }),
      tags: definition.tags,
      security: SECURITY[definition.auth],
      ...(definition.params === undefined ? {} : { params: definition.params }),
      ...(definition.query === undefined ? {} : { querystring: definition.query }),
      ...(definition.body === undefined ? {} : { body: definition.body }),
      ...(definition.documentedBody === undefined ? {} : { body: definition.documentedBody }),
      response: {
        ...(definition.response === undefined
          ? {}
          : { [status]: envelopeOf(definition.response).describe(definition.summary) }),
        ...Object.fromEntries(
          Object.entries(definition.otherSuccesses ?? {}).map(([code, other]) => [
            code,
            envelopeOf(other.data).describe(other.description),
          ]),
        ),
        '4XX': failureEnvelope.describe(
          'Refused: `{success: false, error: {code, message}}` with a stable code.',
        ),
        '5XX': failureEnvelope.describe(
          'Failed on this side or beyond it, in the same envelope: `SERVICE_UNAVAILABLE` (503, a backing store is down; `Retry-After` when known), `TX_EXECUTION_FAILED` or `X402_UPSTREAM_ERROR` (502), `INTERNAL_ERROR` (500, with the request id).',
        ),
      },
    },
    // A route without a body schema takes no body fields (contract: unknown fields are a 400, no mass
    // assignment): nothing, or an empty object, and anything else is refused before the handler runs.
    ...(definition.body === undefined && definition.method !== 'GET' && !definition.bodyValidatedByHandler
      ? { preValidation: async (request: FastifyRequest) => refuseBodyFields(request.body) }
      : {}),
    ...(definition.documentedBody === undefined
      ? {}
      : { validatorCompiler: documentedBodyCompiler(definition.body) as never }),
    handler: async (request, reply) => {
      const input = {
        params: request.params,
        query: request.query,
        body: request.body,
        request,
        reply,
        services,
      };
      if (definition.stepUp !== undefined) await requireStepUp(definition, input);
      const result = isAuditedWrite(definition)
        ? await runAudited(input, () => definition.handler(input), operationId ?? definition.url)
        : await definition.handler(input);
      if (result.headers !== undefined) reply.headers(result.headers);
      reply.code(result.status ?? status);
      return { success: true, ...result.envelope, data: result.data };
    },
  };
}

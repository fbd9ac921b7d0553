// The one place where any error becomes the failure envelope. Unknown errors are logged with the request id
// and answered with a generic 500: never a stack trace, SQL text or driver message in a body.
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { BALANCE_MAX_MICROS, BalanceLimitError, InsufficientFundsError } from '../domain/money/accounts.ts';
import { formatMicros } from '../domain/money.ts';
import { AppError } from '../errors.ts';
import { isConnectionFailure, isRetryableConflict } from '../store/errors.ts';
import { resourceMetadataUrl } from './oauth.ts';
import { describeIssues } from './schemas.ts';

export function failureBody(error: AppError, toolName: string | null = null) {
  return {
    success: false as const,
    ...(toolName === null ? {} : { tool: toolName }),
    error: { code: error.code, message: error.message, ...error.details },
    ...(error.data === undefined ? {} : { data: error.data }),
  };
}

export function sendAppError(reply: FastifyReply, error: AppError) {
  if (error.headers !== undefined) reply.headers(error.headers);
  if (error.status === 401 && !reply.hasHeader('www-authenticate'))
    reply.header('www-authenticate', wwwAuthenticate(error, reply.request));
  return reply.code(error.status).send(failureBody(error, reply.request.toolName ?? null));
}

/**
 * RFC 9110 section 11.6.1: every 401 names its scheme. RFC 6750 section 3: a credential that was sent and refused
 * is `error="invalid_token"`; a request without one gets the bare challenge. (OAuth's `resource_metadata` joins
 * the /mcp challenge once the service is an authorization server, contract section 12.)
 */
function wwwAuthenticate(error: AppError, request: FastifyRequest): string {
  const challenge = 'Bearer realm="agent-wallet"';
  const refusedToken =
    error.code === 'MCP_AUTH_INVALID' ||
    ((error.code === 'UNAUTHORIZED' || error.code === 'MCP_AUTH_MISSING') &&
      /^bearer\s+\S/i.test(String(request.headers.authorization ?? '')));
  // On /mcp the challenge points agent hosts at the OAuth metadata (RFC 9728 section 5.1, contract section 12).
  const path = request.url.split('?', 1)[0];
  const url =
    path === '/mcp' || path === '/mcp/' ? resourceMetadataUrl(request, request.server.hostRules) : null;
  const metadata = url === null ? '' : `, resource_metadata="${url}"`;
  return `${challenge}${refusedToken ? ', error="invalid_token"' : ''}${metadata}`;
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let appError: AppError;
  try {
    appError = toAppError(error, request);
  } catch (mappingError) {
    // Never let the error path itself answer outside the envelope.
    request.log.error({ err: mappingError, original: error }, 'error handler failed');
    appError = new AppError('INTERNAL_ERROR', `an unexpected error occurred (request id ${request.id})`);
  }
  return sendAppError(reply, appError);
}

const CONTEXT_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path' };

function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = CONTEXT_NAMES[error.validationContext ?? 'body'] ?? 'body';
    // The type provider flattens each zod issue into {keyword, instancePath, message, params}; rebuild it.
    const issues = error.validation.map(
      (v) =>
        ({
          ...v.params,
          code: v.keyword,
          message: v.message,
          path: (v.instancePath ?? '').split('/').filter((part) => part !== ''),
        }) as unknown as z.core.$ZodIssue,
    );
    return new AppError('VALIDATION_ERROR', describeIssues(issues, where));
  }
  const known = fastifyClientError(error);
  if (known !== undefined) return known;
  return serviceError(error, request.log, request.id);
}

/**
 * What any layer (REST, MCP) answers for an error thrown below it: its own AppError, a 422 for a balance the
 * ledger refused, a 503 for a backing store that is down or slow, and otherwise a logged 500 that names only
 * the request id: a driver message or an assertion's text never reaches a client.
 */
export function serviceError(error: unknown, log: FastifyBaseLogger, requestId: string): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof InsufficientFundsError) {
    return new AppError('INSUFFICIENT_BALANCE', 'not enough available balance');
  }
  if (error instanceof BalanceLimitError) {
    return new AppError(
      'VALIDATION_ERROR',
      `this would bring a balance past the maximum of ${formatMicros(BALANCE_MAX_MICROS)} USDC`,
    );
  }
  if (isConnectionFailure(error)) {
    log.error({ err: error }, 'backing store unavailable');
    return new AppError('SERVICE_UNAVAILABLE', 'a backing store is unavailable; retry shortly');
  }
  if (isRetryableConflict(error)) {
    // Still conflicting after the writer's bounded re-runs: nothing was written; the client may retry.
    log.warn({ err: error }, 'write conflict persisted after retries');
    return new AppError('SERVICE_UNAVAILABLE', 'the ledger is busy with conflicting writes; retry shortly', {
      headers: { 'retry-after': '1' },
    });
  }
  log.error({ err: error }, 'unexpected error');
  return new AppError('INTERNAL_ERROR', `an unexpected error occurred (request id ${requestId})`);
}

function fastifyClientError(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'the request body is larger than 64 KiB');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'the request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('VALIDATION_ERROR', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', 'Content-Length does not match the body');
    default:
      break;
  }
  if (typeof error.statusCode !== 'number' || error.statusCode < 400 || error.statusCode >= 500)
    return undefined;
  if (error.statusCode === 404 || error.statusCode === 403) return new AppError('NOT_FOUND', 'not found');
  if (error.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'the request body is too large');
  // Prototype-poisoned JSON and the parser's other refusals.
  if (error.code?.startsWith('FST_ERR_CTP_'))
    return new AppError('VALIDATION_ERROR', 'the request body could not be read as JSON');
  return new AppError('VALIDATION_ERROR', `the request was refused (${error.code ?? error.statusCode})`);
}

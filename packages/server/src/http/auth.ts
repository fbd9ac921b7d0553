// Who is calling. Runs in onRequest — before the body is parsed or validated — so an unauthenticated
// request is refused before anything else happens, and the rate limiter (which needs the caller's identity)
// can run between identification and the database-backed session check.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { API_KEY_PREFIX } from '../domain/keys/api-keys.ts';
import { ACCESS_TOKEN_PREFIX } from '../domain/oauth/protocol.ts';
import type { Role } from '../domain/organizations/roles.ts';
import { AppError } from '../errors.ts';
import type { AuthenticatedUser } from '../services/identity/auth.ts';

/** Longest Authorization header looked at; a JWT of ours is ~250 characters, an API key 52. */
const AUTHORIZATION_LENGTH_MAX = 2_048;

declare module 'fastify' {
  interface FastifyRequest {
    /** The user of a valid JWT (REST routes), set by the auth hook. */
    user: AuthenticatedUser | null;
  }
  interface FastifyContextConfig {
    auth?: 'none' | 'user' | 'apiKey';
    /** A `user` route: the least role it needs (contract section 9). */
    role?: Role;
    /** A `user` route open to a member who must still enrol a second factor (requireMfa). */
    mfaEnrolment?: boolean;
  }
}

/** The bearer credential, or null when the header is absent or not a bearer. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || header.length > AUTHORIZATION_LENGTH_MAX) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Whether the bearer credential is `secret` (an operator's token), compared in constant time. */
export function bearerMatches(request: FastifyRequest, secret: string): boolean {
  const given = Buffer.from(bearerToken(request) ?? '');
  const expected = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function unauthorized(message = 'a valid session token is required (Authorization: Bearer <JWT>)') {
  return new AppError('UNAUTHORIZED', message);
}

/** An agent's credential: an API key, or an OAuth access token that acts as one (contract section 12). */
export function isApiKeyShaped(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX) || token.startsWith(ACCESS_TOKEN_PREFIX);
}

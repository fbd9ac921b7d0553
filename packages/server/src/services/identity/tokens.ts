// The session token: a JWT (HS256) whose `sub` is the user and whose `jti` names the server-side session
// (sessions.ts). It expires with its session, exactly SESSION_SECONDS after the whole second of issue.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

export const SESSION_SECONDS = 7 * 24 * 60 * 60;
const JWT_ALGORITHM = 'HS256';

export interface TokenClaims {
  userId: string;
  sessionId: string;
}

export async function issueSessionToken(
  jwtSecret: Uint8Array,
  claims: TokenClaims,
  issuedAtMs: number,
): Promise<string> {
  const iat = Math.floor(issuedAtMs / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: JWT_ALGORITHM, typ: 'JWT' })
    .setSubject(claims.userId)
    .setJti(claims.sessionId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + SESSION_SECONDS)
    .sign(jwtSecret);
}

/** Signature and expiry only (no database): the claims, or null for a token that is not ours or has expired. */
export async function verifySessionToken(
  jwtSecret: Uint8Array,
  token: string,
  nowMs: number,
): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, jwtSecret, {
      algorithms: [JWT_ALGORITHM],
      currentDate: new Date(nowMs),
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    });
    return { userId: payload.sub!, sessionId: payload.jti! };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) return null;
    throw error;
  }
}

import { z } from 'zod';
import { parseScopes } from '../../domain/keys/api-keys.ts';
import { idSchema } from '../../http/schemas.ts';

export const keyParams = z.strictObject({ walletId: idSchema, keyId: idSchema });

/** ["read"], ["write"], ["read","write"] or the strings "read", "write", "read,write"; default both. */
export const scopesSchema = z
  .unknown()
  .transform((value, ctx) => {
    const parsed = parseScopes(value);
    if (parsed.ok) return parsed.scopes;
    ctx.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  })
  .meta({
    anyOf: [
      {
        type: 'array',
        items: { type: 'string', enum: ['read', 'write'] },
        minItems: 1,
        maxItems: 2,
        uniqueItems: true,
      },
      // parseScopes: one or both names, comma-separated, each trimmed, none twice.
      { type: 'string', pattern: '^\\s*(?:read\\s*(?:,\\s*write\\s*)?|write\\s*(?:,\\s*read\\s*)?)$' },
    ],
    description: 'default ["read","write"]; also the text "read", "write" or "read,write"',
  });

const scope = z.enum(['read', 'write']);
const timestamp = z.string();

export const createdKeyView = z.object({
  id: z.string(),
  key: z.string().describe('the API key itself: shown in this response only, never again'),
  prefix: z.string(),
  label: z.string(),
  scopes: z.array(scope),
  walletId: z.string(),
  createdAt: timestamp,
  expiresAt: timestamp.nullable(),
});

export const keyView = z.object({
  id: z.string(),
  type: z
    .enum(['api_key', 'oauth'])
    .describe('oauth: a connection an owner allowed an OAuth client (an agent host); revoke ends its tokens'),
  clientName: z.string().nullable().describe('the OAuth client’s name; null for an API key'),
  prefix: z.string(),
  label: z.string(),
  scopes: z.array(scope),
  walletId: z.string(),
  status: z.enum(['active', 'rotating', 'revoked', 'expired']),
  createdAt: timestamp,
  expiresAt: timestamp.nullable(),
  revokedAt: timestamp
    .nullable()
    .describe('when the key stops (stopped) working; in the future during a rotation grace'),
  lastUsedAt: timestamp.nullable(),
  rotatedToKeyId: z.string().nullable(),
});

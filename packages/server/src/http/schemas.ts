// Shared zod schemas of the wire format. One schema gives validation, the handler's types and the OpenAPI
// document. Objects are strict: an unknown field is a 400, never silently ignored (no mass assignment).
import { z } from 'zod';
import { parseAddress } from '../domain/address.ts';
import { AMOUNT_STRING_LENGTH_MAX, parseAmount } from '../domain/money.ts';
import { PASSWORD_LENGTH_MAX, PASSWORD_LENGTH_MIN, passwordProblem } from '../domain/passwords.ts';
import { scrubSecrets } from '../log-scrub.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../services/context.ts';
import { IDEMPOTENCY_KEY_LENGTH_MAX } from '../services/idempotency.ts';

export const EMAIL_LENGTH_MAX = 254;
export const MEMO_LENGTH_MAX = 500;
export const ID_LENGTH_MAX = 64;
export const LABEL_LENGTH_MAX = 100;

/** A decimal string amount -> micro-units (bigint). Every malformed form gets its own message. */
export const amountSchema = z
  .unknown()
  .transform((value, ctx) => {
    const parsed = parseAmount(value);
    if (parsed.ok) return parsed.micros;
    ctx.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  })
  .meta({
    type: 'string',
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$',
    maxLength: AMOUNT_STRING_LENGTH_MAX,
    description: 'USDC amount as a decimal string, above 0 and at most 1000000000, up to 6 decimals',
    examples: ['10.5'],
  });

/** An EVM address -> its lower-case form. A mixed-case address must carry a valid EIP-55 checksum. */
export const addressSchema = z
  .unknown()
  .transform((value, ctx) => {
    const parsed = parseAddress(value);
    if (parsed.ok) return parsed.lower;
    ctx.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  })
  .meta({ type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', description: 'EVM address (0x + 40 hex)' });

/** Free text the service stores: no NUL characters (PostgreSQL text cannot hold them; SQLite would). */
function storedText(schema: z.ZodString) {
  return schema.refine((text) => !text.includes('\u0000'), { message: 'must not contain NUL characters' });
}

export const labelSchema = storedText(z.string().trim().min(1).max(LABEL_LENGTH_MAX));
export const memoSchema = storedText(z.string().max(MEMO_LENGTH_MAX));
export const idempotencyKeySchema = storedText(z.string().min(1).max(IDEMPOTENCY_KEY_LENGTH_MAX));

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(EMAIL_LENGTH_MAX)
  .pipe(z.email({ message: 'must be a valid email address' }));
/** A password being set: every rule is passwordProblem's (length included: it counts code points, zod would not). */
export const passwordSchema = z
  .string()
  .superRefine((password, ctx) => {
    const problem = passwordProblem(password);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    minLength: PASSWORD_LENGTH_MIN,
    maxLength: PASSWORD_LENGTH_MAX,
    description:
      'Not only spaces, no control characters, and not one of the 10,000 most common passwords (case-insensitive).',
  });

export const idSchema = z
  .string()
  .min(1)
  .max(ID_LENGTH_MAX)
  .regex(/^[A-Za-z0-9_-]+$/, { message: 'is not a valid id' });
export const walletIdParams = z.strictObject({ walletId: idSchema });

// Query strings arrive as text; only canonical positive integers are accepted ("01", "1.0", "1e1" are not).
const positiveIntText = z
  .string()
  .regex(/^[1-9][0-9]{0,8}$/, { message: 'must be a positive whole number' })
  .transform(Number);

export const paginationQuery = z.strictObject({
  page: positiveIntText.optional().default(1),
  limit: positiveIntText
    .optional()
    .default(PAGE_LIMIT_DEFAULT)
    .refine((n) => n <= PAGE_LIMIT_MAX, { message: `must be between 1 and ${PAGE_LIMIT_MAX}` }),
});

/**
 * A body that may be absent. Fastify hands an absent body to the validator as null, so these accept null too;
 * a body that is present must still match exactly.
 */
export function optionalBody<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject(shape).nullish();
}
export const noBody = optionalBody({});

const toolField = z.string().optional().describe('Tool responses (success and failure) name the tool.');

export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), tool: toolField, data });
}

export const failureEnvelope = z.object({
  success: z.literal(false),
  tool: toolField,
  error: z
    .object({ code: z.string(), message: z.string() })
    .loose()
    .describe('`code` is stable (contract section 2); a policy denial adds `violations`.'),
  data: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('The record a failure still produced (a policy denial’s rejected transaction).'),
});

export function paginated<T extends z.ZodType>(item: T, listName: 'items' | 'transactions' = 'items') {
  return z.object({
    [listName]: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  });
}

/** Turns zod issues into one sentence naming each bad field. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], where: string): string {
  // Masked: a message echoes field names, and a caller may have sent a secret as one.
  const parts = issues.slice(0, 5).map((issue) => scrubSecrets(describeIssue(issue, where)));
  return parts.join('; ');
}

function describeIssue(issue: z.core.$ZodIssue, where: string): string {
  const field = issue.path.length > 0 ? issue.path.join('.') : where;
  if (issue.code === 'invalid_key') {
    // The bad key is shown escaped and short (it may hold a CR, an LF, or a secret sent as a name).
    const key = String(issue.path.at(-1) ?? '');
    const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
    const owner = issue.path.length > 1 ? issue.path.slice(0, -1).join('.') : where;
    const why = issue.issues[0]?.message ?? 'is not allowed';
    return `${owner}: ${shown} ${why}`;
  }
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length > 0 ? `${issue.path.join('.')}.` : '';
    // Field names are echoed short: a client that sent a secret as a field name must not get it back whole.
    const names = issue.keys.slice(0, 5).map((k) => `${prefix}${k.length > 40 ? `${k.slice(0, 40)}…` : k}`);
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${names.join(', ')}`;
  }
  if (issue.code === 'invalid_type') {
    // zod does not keep the input on issues; its message says what it received.
    if (/received undefined$/.test(issue.message)) return `${field} is required`;
    return `${field} must be ${article(issue.expected)}`;
  }
  if (issue.code === 'too_small' && issue.origin === 'string') {
    return issue.minimum === 1
      ? `${field} must not be empty`
      : `${field} must be at least ${issue.minimum} characters`;
  }
  if (issue.code === 'too_big' && issue.origin === 'string')
    return `${field} must be at most ${issue.maximum} characters`;
  if (issue.code === 'too_big' && issue.origin === 'array')
    return `${field} must have at most ${issue.maximum} items`;
  if (issue.code === 'too_small' && issue.origin === 'array')
    return `${field} must have at least ${issue.minimum} items`;
  if (issue.code === 'invalid_value')
    return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return `${field} ${issue.message.replace(/^Invalid input: /, '')}`;
}

function article(expected: string): string {
  if (expected === 'object') return 'an object';
  if (expected === 'array') return 'an array';
  return `a ${expected}`;
}

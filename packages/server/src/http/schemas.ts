// Shared zod schemas of the wire format. One schema gives validation, the handler's types and the OpenAPI
// document. Objects are strict: an unknown field is a 400, never silently ignored (no mass assignment).
import { z } from 'zod';
import { parseAddress } from '../domain/address.ts';
import { hasVisibleCharacter, humanTextProblem } from '../domain/human-text.ts';
import {
  PASSWORD_ESTIMATE_LENGTH_MAX,
  PASSWORD_LENGTH_MAX,
  PASSWORD_LENGTH_MIN,
  PASSWORD_SCORE_MIN,
  passwordProblem,
} from '../domain/identity/passwords.ts';
import { parseAmount } from '../domain/money.ts';
import { scrubSecrets } from '../log-scrub.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../services/context.ts';
import { IDEMPOTENCY_KEY_LENGTH_MAX } from '../services/money/idempotency.ts';

export const EMAIL_LENGTH_MAX = 254;
export const MEMO_LENGTH_MAX = 500;
export const ID_LENGTH_MAX = 64;
export const LABEL_LENGTH_MAX = 100;

/**
 * What the validator accepts, as a JSON Schema pattern (issue 27: the document must refuse what the server refuses):
 * a decimal string above 0 and at most 1000000000 with up to 6 decimals — 1 to 999999999 with any decimals,
 * 1000000000 with zeros only, or 0 with at least one non-zero decimal. No look-ahead, so every JSON Schema tool
 * (and every regex engine a generated client uses) reads it.
 */
export const AMOUNT_JSON_PATTERN =
  '^(?:[1-9][0-9]{0,8}(?:\\.[0-9]{1,6})?|1000000000(?:\\.0{1,6})?|' +
  '0\\.(?:[1-9][0-9]{0,5}|0[1-9][0-9]{0,4}|00[1-9][0-9]{0,3}|000[1-9][0-9]{0,2}|0000[1-9][0-9]?|00000[1-9]))$';
/** The longest amount the pattern allows: "1000000000.000000". */
const AMOUNT_TEXT_LENGTH_MAX = 17;

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
    pattern: AMOUNT_JSON_PATTERN,
    maxLength: AMOUNT_TEXT_LENGTH_MAX,
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
  .meta({
    type: 'string',
    // The three forms accepted, spelled out: a checksum cannot be a pattern, so the mixed-case one is described.
    pattern: '^0x(?:[0-9a-f]{40}|[0-9A-F]{40}|[0-9a-fA-F]{40})$',
    description:
      'EVM address (0x + 40 hex): all lower-case or all upper-case hex, or mixed case carrying a valid EIP-55 checksum (a wrong checksum is 400)',
  });

/** No NUL character, as a JSON Schema pattern. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** Refuses a NUL character (PostgreSQL text cannot hold one; SQLite would); the caller documents it. */
export function noNul<T extends z.ZodType<string, string>>(schema: T) {
  return schema.refine((text) => !text.includes('\u0000'), { message: 'must not contain NUL characters' });
}

/** Free text the service stores that is not for people to read (an idempotency key): no NUL characters. */
function storedText<T extends z.ZodType<string, string>>(schema: T) {
  return noNul(schema).meta({ pattern: NO_NUL_PATTERN });
}

/** Every character of the Basic Multilingual Plane matching `test`, as the body of a character class. */
function bmpClass(test: RegExp): string {
  let out = '';
  for (let start = 0; start <= 0xffff; start += 1) {
    if (!test.test(String.fromCharCode(start))) continue;
    let end = start;
    while (end < 0xffff && test.test(String.fromCharCode(end + 1))) end += 1;
    const hex = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
    out += start === end ? hex(start) : `${hex(start)}-${hex(end)}`;
    start = end;
  }
  return out;
}

// domain/human-text.ts's rule as a pattern, spelled as \\u ranges (no \\p{…}: engines without Unicode property
// escapes read it too). It holds the refused characters of the Basic Multilingual Plane; the 127 format characters
// beyond it (tag characters, a few musical and hieroglyph format controls) would need surrogate pairs that read
// differently with and without the `u` flag, so the description names them and the server refuses them. Lone
// surrogates are refused in every body before any schema (domain/unicode.ts).
const HIDDEN_BMP = bmpClass(/^(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u);
const HUMAN_TEXT_PATTERN = `^[^${HIDDEN_BMP}]*$`;
const HUMAN_NAME_PATTERN = `^[^${HIDDEN_BMP}]*[^${HIDDEN_BMP}\\s\\u200c\\u200d][^${HIDDEN_BMP}]*$`;
/** The rule in words, for every description a pattern cannot reach (models are shown no pattern). */
export const HUMAN_TEXT_RULE =
  'one line of plain text: no control, line-break, bidi or invisible format characters (CR, LF, U+202E, U+200B, ' +
  'tag characters…; a zero-width joiner inside an emoji is fine)';

function refuseHidden(text: string, ctx: z.RefinementCtx): void {
  const problem = humanTextProblem(text);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
}

/**
 * Text people read (a label, name, description, memo or reason): at most `max` characters and
 * domain/human-text.ts's rule, one place for every such field of every route and tool. `trimmed`: surrounding
 * whitespace is trimmed and something visible must remain (a name); otherwise it may be empty (a memo). Lengths
 * are checked before trimming, so the document's maxLength bounds exactly what a client sends.
 */
export function humanText(max: number, options: { trimmed?: boolean } = {}) {
  if (options.trimmed !== true) {
    return z
      .string()
      .max(max)
      .superRefine(refuseHidden)
      .meta({ pattern: HUMAN_TEXT_PATTERN, description: HUMAN_TEXT_RULE });
  }
  // Judged before trimming: a CR or LF at the end is refused like one inside, as the pattern says.
  return z
    .string()
    .max(max)
    .superRefine(refuseHidden)
    .trim()
    .min(1)
    .refine((text) => text === '' || hasVisibleCharacter(text), {
      message: 'must hold a visible character, not only spaces or joiners',
    })
    .meta({
      pattern: HUMAN_NAME_PATTERN,
      description: `${HUMAN_TEXT_RULE}; not only whitespace; surrounding whitespace is trimmed`,
    });
}

export const labelSchema = humanText(LABEL_LENGTH_MAX, { trimmed: true });
export const memoSchema = humanText(MEMO_LENGTH_MAX);
export const idempotencyKeySchema = storedText(z.string().min(1).max(IDEMPOTENCY_KEY_LENGTH_MAX));

/** zod's email rule (z.email()) as a pattern, with the whitespace the schema trims around it. */
const EMAIL_JSON_PATTERN = `^\\s*${z.regexes.email.source.slice(1, -1)}\\s*$`;

export const emailSchema = z
  .string()
  .max(EMAIL_LENGTH_MAX)
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'must be a valid email address' }))
  .meta({
    pattern: EMAIL_JSON_PATTERN,
    description: 'an email address; surrounding whitespace is trimmed and letters are lower-cased',
  });
// passwordProblem as a pattern: no control character (Cc), and at least one character that is neither
// whitespace nor an invisible format character (Cf). Spelled as \\u ranges (no \\p{…}), so engines without
// Unicode property escapes read it too; format characters beyond the BMP are left to the description.
const CONTROL = bmpClass(/\p{Cc}/u);
const BLANK = bmpClass(/[\p{White_Space}\p{Cf}]/u);
const PASSWORD_JSON_PATTERN = `^[^${CONTROL}]*[^${CONTROL}${BLANK}][^${CONTROL}]*$`;

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
    pattern: PASSWORD_JSON_PATTERN,
    description:
      'Not only spaces or invisible characters, no control characters, and hard enough to guess: a zxcvbn score of ' +
      `at least ${PASSWORD_SCORE_MIN} of 4 (the estimator reads the first ${PASSWORD_ESTIMATE_LENGTH_MAX} characters, ` +
      'surrounding spaces aside; its dictionaries are not in this document). A common password, a repeated or ' +
      'sequential pattern or a short random string is refused with the estimator’s advice.',
  });

export const idSchema = z
  .string()
  .min(1)
  .max(ID_LENGTH_MAX)
  .regex(/^[A-Za-z0-9_-]+$/, { message: 'is not a valid id' });
export const walletIdParams = z.strictObject({ walletId: idSchema });

// Query strings arrive as text; only canonical positive integers are accepted ("01", "1.0", "1e1" are not).
// The `limit` pattern below spells 1 to 100.
if (PAGE_LIMIT_MAX !== 100) throw new Error('paginationQuery.limit documents 1-100: change its pattern');

const positiveIntText = z
  .string()
  .regex(/^[1-9][0-9]{0,8}$/, { message: 'must be a positive whole number' })
  .transform(Number);

export const paginationQuery = z.strictObject({
  page: positiveIntText.optional().default(1).meta({ description: 'from 1 (default 1)' }),
  limit: positiveIntText
    .optional()
    .default(PAGE_LIMIT_DEFAULT)
    .refine((n) => n <= PAGE_LIMIT_MAX, { message: `must be between 1 and ${PAGE_LIMIT_MAX}` })
    .meta({
      // 1 to PAGE_LIMIT_MAX (100) as text: what the refinement above accepts.
      pattern: '^(?:[1-9][0-9]?|100)$',
      description: `1 to ${PAGE_LIMIT_MAX} (default ${PAGE_LIMIT_DEFAULT})`,
    }),
});

/**
 * A body that may be absent. Fastify hands an absent body to the validator as null, so these accept null too;
 * a body that is present must still match exactly.
 */
export function optionalBody<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject(shape).nullish();
}
export const noBody = optionalBody({});

/**
 * The document's view of a body that takes exactly one of several alternatives (beside fields every alternative
 * has): `oneOf` complete objects, one per alternative, each naming its fields, requiring them and no other. A
 * reader, or a generator such as Schemathesis, then never takes `{}` for a valid body, as it may from shared
 * `properties` beside `oneOf: [{required}]`. Documentation only: the route's validating schema states the same
 * rule with a message that names the fields.
 */
export function oneOfBodies(
  shared: z.core.$ZodLooseShape,
  alternatives: Record<string, z.ZodType>,
  description: string,
): z.ZodType {
  const branches = Object.entries(alternatives).map(([name, schema]) => {
    const json = z.toJSONSchema(z.strictObject({ ...shared, [name]: schema }), {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    const { $schema: _, ...branch } = json;
    return { title: `with ${name}`, ...branch };
  });
  return z.unknown().meta({ description, oneOf: branches });
}

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
    .describe('`code` is stable; a policy denial adds `violations`.'),
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

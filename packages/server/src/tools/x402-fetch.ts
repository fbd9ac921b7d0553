import { z } from 'zod';
import { HEADER_NAME_PATTERN, HEADER_VALUE_PATTERN, keyLeakIn } from '../domain/x402-request.ts';
import { invalid } from '../errors.ts';
import { amountSchema, HUMAN_TEXT_RULE, idempotencyKeySchema, memoSchema } from '../http/schemas.ts';
import type { X402FetchParams } from '../services/x402/x402.ts';
import type { ToolDefinition } from './definition.ts';
import { optionalParam } from './optional-param.ts';
import { x402FetchOutput } from './outputs.ts';
import { x402ServiceOf } from './x402-common.ts';

const HEADERS_MAX = 32;
const HEADER_VALUE_LENGTH_MAX = 4_096;
const BODY_LENGTH_MAX = 64 * 1024;

// Checked here, not by the HTTP client: it refuses what it cannot send with an exception (a 500), not a reason.
const NAME_ERROR = "is not a header name (an RFC 9110 token of 1 to 128 letters, digits and !#$%&'*+-.^_`|~)";
const headerName = z
  .string()
  .min(1, { error: NAME_ERROR })
  .max(128, { error: NAME_ERROR })
  .regex(HEADER_NAME_PATTERN, { error: NAME_ERROR });
const headerValue = z.string().max(HEADER_VALUE_LENGTH_MAX).regex(HEADER_VALUE_PATTERN, {
  error:
    'must be visible ASCII, spaces and tabs only (no CR, LF, NUL or other control or non-ASCII character)',
});

const HEADERS_TEXT =
  'headers sent upstream, as given (this call’s own Authorization is never forwarded; put one here only to send it to that site); ' +
  `names are RFC 9110 tokens of 1 to 128 characters, values visible ASCII of at most ${HEADER_VALUE_LENGTH_MAX} characters, ` +
  `at most ${HEADERS_MAX} headers, each name once. An API key of this service here, in the url or in the body is refused`;

/** The contract's form: an object of header names to values. Models cannot be shown an open object (see below). */
const headersObject = z
  .record(headerName, headerValue)
  .refine((h) => Object.keys(h).length <= HEADERS_MAX, `at most ${HEADERS_MAX} headers`)
  .meta({ maxProperties: HEADERS_MAX });
/** The closed form models are shown (OpenAI's strict mode closes every object): a list of {name, value}. */
const headersList = z.array(z.strictObject({ name: headerName, value: headerValue })).max(HEADERS_MAX);

const jsonSchemaOf = (schema: z.ZodType) => {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input' });
  return json;
};

/**
 * Either form, checked by the one its shape names: a union would answer a bad header name with zod's bare
 * "Invalid input" instead of the reason (x402-input.test.ts). The document states both forms.
 */
const headersParam = z
  .unknown()
  .transform((value, ctx): z.output<typeof headersObject> | z.output<typeof headersList> => {
    const checked = (Array.isArray(value) ? headersList : headersObject).safeParse(value);
    if (checked.success) return checked.data;
    for (const issue of checked.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  })
  .meta({ anyOf: [jsonSchemaOf(headersObject), jsonSchemaOf(headersList)] });

const params = {
  url: z
    .string()
    .min(1)
    .max(2_048)
    .describe('the resource to request: https:// (private targets are refused)'),
  method: optionalParam(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])).describe('default GET'),
  headers: optionalParam(headersParam).describe(HEADERS_TEXT),
  body: optionalParam(z.string().max(BODY_LENGTH_MAX)).describe('request body (UTF-8 text, e.g. JSON)'),
  maxAmount: amountSchema.describe('the most this call may pay (USDC); a higher price is refused unsigned'),
  memo: optionalParam(memoSchema).describe(`free text stored with the payment: ${HUMAN_TEXT_RULE}`),
  idempotencyKey: optionalParam(idempotencyKeySchema).describe(
    'retrying with the same key replays the first answer (never a second payment); after an approval it pays',
  ),
};
/** x402_fetch's and paid_fetch's input (the same request; they differ in what they may pay with). */
export const fetchInput = z.strictObject(params);
export const fetchPublished = z.strictObject({
  ...params,
  headers: optionalParam(headersList).describe(HEADERS_TEXT),
});

type FetchInput = z.output<typeof fetchInput>;

/** The request as the service takes it, after the checks both fetch tools make (headers, no key of ours in it). */
export function fetchParamsOf(given: FetchInput, credential: string | null): X402FetchParams {
  const headers = headersOf(given.headers);
  refuseKeyLeak({ url: given.url, headers, body: given.body ?? null }, credential);
  return {
    url: given.url,
    method: given.method ?? 'GET',
    headers,
    body: given.body ?? null,
    maxAmountMicros: given.maxAmount,
    memo: given.memo ?? null,
  };
}

export const x402FetchTool: ToolDefinition<FetchInput> = {
  name: 'x402_fetch',
  scope: 'write',
  rails: ['evm'],
  description:
    'Fetch an HTTP resource that may ask for payment (x402, HTTP 402; evm rail only). On a 402 the price is checked against ' +
    'maxAmount and decided like send_payment to the seller (every policy, cap and the approval threshold); if ' +
    'allowed, the service signs a USDC authorization and fetches again with it. Answers {status, headers, body, ' +
    'bodyEncoding, payment}; payment.status "pending" means the owner must approve, then call again with the same ' +
    'idempotencyKey.',
  input: fetchInput,
  published: () => ({ input: fetchPublished }),
  output: x402FetchOutput,
  run({ key, input: given, idempotencyKey, services, credential }) {
    return x402ServiceOf(services).fetch(key, fetchParamsOf(given, credential), idempotencyKey);
  },
};

/**
 * The headers as the x402 service takes them (an object), from either form. A name given twice in the list is
 * refused rather than merged or overwritten: HTTP names are case-insensitive, and which value went would be a guess.
 */
function headersOf(given: FetchInput['headers']): Record<string, string> {
  if (given === undefined) return {};
  if (!Array.isArray(given)) return given;
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [index, { name, value }] of given.entries()) {
    // The name is not echoed: a caller may have sent a secret as one.
    if (seen.has(name.toLowerCase()))
      throw invalid(
        `params.headers.${index}.name: this header name is given twice (names are case-insensitive)`,
      );
    seen.add(name.toLowerCase());
    headers[name] = value;
  }
  return headers;
}

/** An API key of this service, the caller's above all, is never sent to a third party (before anything is asked). */
function refuseKeyLeak(
  request: { url: string; headers: Record<string, string>; body: string | null },
  credential: string | null,
): void {
  const where = keyLeakIn(request, credential);
  if (where !== null)
    throw invalid(`${where} carries an API key of this service; it is never sent to a third party`);
}

// The JSON Schema patterns the OpenAPI document publishes say exactly what the validators accept (issue 27):
// for amounts, emails, labels, memos and passwords, a pattern match and the validator's verdict agree on generated
// strings near and far from the rules' edges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import { passwordProblem } from '../domain/identity/passwords.ts';
import { parseAmount } from '../domain/money.ts';
import {
  amountSchema,
  emailSchema,
  labelSchema,
  memoSchema,
  paginationQuery,
  passwordSchema,
} from './schemas.ts';

const ASTRAL_FORMAT_CHARS = /(?=[\u{10000}-\u{10ffff}])\p{Cf}/u;

/** Text with the characters human text refuses or keeps mixed in: controls, bidi, joiners, emoji, tags. */
function humanLike(maxLength: number) {
  const special = fc.constantFrom(
    '\r',
    '\n',
    '\t',
    '\u202e',
    '\u2067',
    '\u200b',
    '\u200c',
    '\u200d',
    '\u2028',
    '\ufe0f',
    '👩',
    '\u{e0041}',
    'א',
  );
  return fc.oneof(
    fc.string({ maxLength }),
    fc.string({ maxLength, unit: 'binary' }),
    fc
      .array(fc.oneof(fc.string({ maxLength: 6 }), special), { maxLength: 16 })
      .map((parts) => parts.join('')),
  );
}

const patternOf = (schema: z.ZodType) =>
  new RegExp(
    (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { pattern: string }).pattern,
    'u',
  );

const RUNS = { numRuns: 2_000, seed: 27 };

test('amount: the published pattern accepts exactly what parseAmount accepts', () => {
  const pattern = patternOf(amountSchema);
  const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 12 });
  const amountLike = fc.oneof(
    fc.tuple(digits, fc.option(digits)).map(([w, f]) => (f === null ? w : `${w}.${f}`)),
    fc.constantFrom(
      '0',
      '0.0',
      '0.000001',
      '0.0000001',
      '1000000000',
      '1000000000.000000',
      '1000000000.000001',
    ),
    fc.constantFrom('999999999.999999', '1000000001', '01', '1.', '.5', '-1', '1e3', '00.1', '0.10'),
    fc.string({ maxLength: 20 }),
  );
  fc.assert(
    fc.property(amountLike, (text) => {
      assert.equal(pattern.test(text), parseAmount(text).ok, JSON.stringify(text));
    }),
    RUNS,
  );
});

test('email, label, password and page limit: pattern match and validation agree', () => {
  const cases: Array<[z.ZodType, fc.Arbitrary<unknown>, (value: unknown) => boolean]> = [
    [
      emailSchema,
      fc.oneof(
        fc.emailAddress(),
        fc.emailAddress().map((e) => ` ${e.toUpperCase()}\t`),
        fc.string({ maxLength: 30 }),
        fc.constantFrom('a@b.co', 'a..b@c.de', '.a@b.cd', "a'@b.cd", 'a@b', 'a@-b.cd', ' @b.cd'),
      ),
      (v) => emailSchema.safeParse(v).success,
    ],
    [
      labelSchema,
      fc.oneof(
        humanLike(110),
        fc.constantFrom('   ', ' a ', 'a\u0000b', '\u00a0', '\ufeffx', '', ' \u200d ', 'x\r\n'),
      ),
      (v) => labelSchema.safeParse(v).success,
    ],
    [
      memoSchema,
      fc.oneof(humanLike(510), fc.constantFrom('', ' ', 'a\u202eb')),
      (v) => memoSchema.safeParse(v).success,
    ],
    [
      passwordSchema,
      fc.oneof(
        fc.string({ minLength: 8, maxLength: 20, unit: 'binary' }),
        fc.constantFrom(
          '        ',
          '\u200b'.repeat(9),
          'abcdefg\u0007x',
          '\u00a0\u2003\u3000\u00a0\u2003\u3000 \t\n',
        ),
      ),
      // The strength estimate is not in the pattern (the description names it).
      (v) =>
        passwordProblem(v as string) === null || /too easy to guess/.test(passwordProblem(v as string) ?? ''),
    ],
    [
      paginationQuery.shape.limit,
      fc.oneof(fc.nat({ max: 1_000 }).map(String), fc.constantFrom('0', '01', '100', '101', '1.0', '')),
      (v) => paginationQuery.safeParse({ limit: v }).success,
    ],
  ];
  for (const [schema, values, accepts] of cases) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, number>;
    const pattern = patternOf(schema);
    const fits = (v: string) =>
      pattern.test(v) &&
      [...v].length >= (json.minLength ?? 0) &&
      [...v].length <= (json.maxLength ?? Number.POSITIVE_INFINITY);
    fc.assert(
      fc.property(values, (value) => {
        // Format characters beyond the BMP are in the description, not the pattern (schemas.ts says why): the
        // validator refuses them where the pattern alone would not.
        if (typeof value === 'string' && ASTRAL_FORMAT_CHARS.test(value)) assert.equal(accepts(value), false);
        else assert.equal(fits(value as string), accepts(value), JSON.stringify(value));
      }),
      RUNS,
    );
  }
});

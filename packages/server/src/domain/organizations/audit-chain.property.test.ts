// The audit chain, by property: a chain built line by line checks clean, in one pass or page by page; removing,
// reordering or changing any field of any line is found.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  AUDIT_GENESIS_HASH,
  type AuditLine,
  type AuditSeal,
  chainStart,
  checkChainLines,
  linkHash,
  sealHash,
} from './audit-chain.ts';

const nullableText = fc.option(fc.string({ maxLength: 12 }), { nil: null });
const draft = fc.record({
  actorId: fc.string({ minLength: 1, maxLength: 8 }),
  action: fc.constantFrom('createPolicy', 'removeMember', 'fundWallet'),
  atMs: fc.bigInt({ min: 0n, max: 2n ** 50n }),
  outcome: fc.constantFrom<AuditSeal['outcome']>('pending', 'completed', 'refused'),
  target: nullableText,
  walletId: nullableText,
  beforeJson: nullableText,
  afterJson: nullableText,
});

type Draft = typeof draft extends fc.Arbitrary<infer D> ? D : never;

function build(drafts: readonly Draft[]): AuditLine[] {
  const lines: AuditLine[] = [];
  let previous = AUDIT_GENESIS_HASH;
  for (const [i, d] of drafts.entries()) {
    const intent = { id: `aud_${i}`, organizationId: 'org_1', seq: BigInt(i + 1), actorType: 'member', ...d };
    const hash = linkHash(previous, intent);
    const sealedHash = d.outcome === 'pending' ? null : sealHash(hash, d);
    lines.push({ ...intent, hash, sealedHash });
    previous = hash;
  }
  return lines;
}

test('a chain built line by line checks clean, whole or page by page', () => {
  fc.assert(
    fc.property(fc.array(draft, { maxLength: 30 }), fc.integer({ min: 1, max: 7 }), (drafts, pageRows) => {
      const lines = build(drafts);
      const whole = checkChainLines(chainStart(), lines);
      assert.deepEqual(whole.problems, []);
      assert.equal(whole.lines, lines.length);
      assert.equal(whole.pending, drafts.filter((d) => d.outcome === 'pending').length);
      let paged = chainStart();
      for (let i = 0; i < lines.length; i += pageRows)
        paged = checkChainLines(paged, lines.slice(i, i + pageRows));
      assert.deepEqual(paged, whole);
    }),
  );
});

const FIELDS = [
  'id',
  'seq',
  'atMs',
  'actorId',
  'action',
  'outcome',
  'target',
  'walletId',
  'afterJson',
  'hash',
] as const;

test('a line removed, swapped or changed in any field is found', () => {
  fc.assert(
    fc.property(
      fc.array(draft, { minLength: 2, maxLength: 20 }),
      fc.nat(),
      fc.constantFrom('remove', 'swap', ...FIELDS),
      (drafts, at, change) => {
        const lines = build(drafts);
        const i = at % (lines.length - 1);
        const tampered = [...lines];
        if (change === 'remove') tampered.splice(i, 1);
        else if (change === 'swap') [tampered[i], tampered[i + 1]] = [tampered[i + 1]!, tampered[i]!];
        else tampered[i] = changed(lines[i]!, change);
        const check = checkChainLines(chainStart(), tampered);
        // Removing the last line leaves a shorter chain that links: the kept head finds that (verify-audit).
        assert.ok(check.problems.length > 0, `${change} at ${i} went unseen`);
      },
    ),
  );
});

function changed(line: AuditLine, field: (typeof FIELDS)[number]): AuditLine {
  switch (field) {
    case 'seq':
    case 'atMs':
      return { ...line, [field]: line[field] + 1n };
    case 'outcome':
      return { ...line, outcome: line.outcome === 'completed' ? 'refused' : 'completed' };
    case 'target':
    case 'walletId':
    case 'afterJson': {
      // A pending line's outcome fields are not sealed yet: sealing it completes the tampering.
      const value = `${line[field] ?? ''}x`;
      return line.outcome === 'pending'
        ? { ...line, [field]: value, sealedHash: 'forged' }
        : { ...line, [field]: value };
    }
    default:
      return { ...line, [field]: `${line[field]}x` };
  }
}

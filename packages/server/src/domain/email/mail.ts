// Email for what needs a person (contract section 10), the pure parts: which events are mailed, to which
// members, and what the mail says. Approvers (every member with approve rights) get approval.requested; owners
// get security.*, withdrawal_address.added, balance.low, budget.threshold, wallet.frozen and treasury.at_risk; each member may turn
// any kind off. The member a role change or a removal is about is told too, at their own address, whatever their
// role and choices (toldToTheMember): it is their own access. A mail is built from an allowlist of the event's fields, each checked against the shape it must
// have (an amount, an address, an id, a time) — never by printing the event — so no secret, and no text an agent
// wrote (a memo, a reason), can reach an inbox.
import { isIP } from 'node:net';
import { withoutHiddenCharacters } from '../human-text.ts';
import { isRole, type Role, roleAllows } from '../organizations/roles.ts';

export const EMAIL_KINDS = [
  'approval.requested',
  'security',
  'withdrawal_address.added',
  'balance.low',
  'budget.threshold',
  'wallet.frozen',
  'treasury.at_risk',
] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** Pure: the kind of mail an event type is; null when it is never mailed. */
export function emailKindOf(eventType: string): EmailKind | null {
  if (eventType.startsWith('security.')) return 'security';
  return (EMAIL_KINDS as readonly string[]).includes(eventType) ? (eventType as EmailKind) : null;
}

/** Pure: whether a member with `role` receives `kind` (if they have not turned it off). */
export function roleReceives(role: Role, kind: EmailKind): boolean {
  return kind === 'approval.requested' ? roleAllows(role, 'approver') : role === 'owner';
}

/** Pure: the kinds a role receives, in EMAIL_KINDS order. */
export function kindsForRole(role: Role): EmailKind[] {
  return EMAIL_KINDS.filter((kind) => roleReceives(role, kind));
}

/** Pure: the kinds a stored preference turned off (unknown entries ignored: a later release may add kinds). */
export function parseOffList(json: string | null): Set<EmailKind> {
  if (json === null) return new Set();
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed)) return new Set();
  return new Set(EMAIL_KINDS.filter((kind) => parsed.includes(kind)));
}

/** Membership events the member they are about is mailed, also once removed (their data's `member.id`). */
const TOLD_TO_THE_MEMBER: ReadonlySet<string> = new Set([
  'security.member_role_changed',
  'security.member_removed',
]);

/** Pure: whether an event of this type is mailed to the member it is about, whatever their role or choices. */
export function toldToTheMember(eventType: string): boolean {
  return TOLD_TO_THE_MEMBER.has(eventType);
}

/** Pure: whether this mail of `eventType` goes to `userId` as the member the event is about. */
export function isAboutRecipient(eventType: string, data: unknown, userId: string): boolean {
  if (!toldToTheMember(eventType)) return false;
  return (data as { member?: { id?: unknown } } | null)?.member?.id === userId;
}

export interface MailMember {
  /** The member's login id: the mail goes to them. */
  userId: string;
  /** The user_id their organization's resources and events carry. */
  scopeUserId: string;
  role: Role;
  off: ReadonlySet<EmailKind>;
}

/** Pure: whether `member` gets a mail of an event of `eventType` about `scopeUserId`'s organization. */
export function receivesMail(member: MailMember, scopeUserId: string, eventType: string): boolean {
  const kind = emailKindOf(eventType);
  return (
    kind !== null &&
    member.scopeUserId === scopeUserId &&
    roleReceives(member.role, kind) &&
    !member.off.has(kind)
  );
}

/** Pure: which members get a mail of which event (events nobody gets left out). */
export function mailRecipients<E extends { userId: string; type: string }>(
  events: readonly E[],
  members: readonly MailMember[],
): Array<{ event: E; userIds: string[] }> {
  return events
    .map((event) => ({
      event,
      userIds: members.filter((m) => receivesMail(m, event.userId, event.type)).map((m) => m.userId),
    }))
    .filter((e) => e.userIds.length > 0);
}

export interface MailInput {
  eventType: string;
  /** The event's data as stored (the resource as the REST API shows it); only allowlisted fields are read. */
  data: unknown;
  createdAtMs: number;
  /** The dashboard's origin, no trailing slash. */
  publicUrl: string;
  /**
   * The wallet the event's `walletId` names, read when the mail is sent (an approval's data names only the
   * wallet's id); null when there is none.
   */
  wallet: { label: string | null; kind: 'master' | 'agent' } | null;
  /** The recipient is the member the event is about (isAboutRecipient): the mail speaks to them. */
  aboutRecipient?: boolean;
}

export interface Mail {
  subject: string;
  text: string;
  html: string;
}

const AMOUNT = /^[0-9]{1,30}(\.[0-9]{1,6})?$/;
const amountField = (data: unknown, key: string) => shortAmount(field(data, key, AMOUNT));
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ID = /^[a-z]{2,4}_[0-9A-Za-z]{1,64}$/;
const TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,3})?Z$/;
const PERCENT = /^[0-9]{1,3}(\.[0-9]{1,2})?$/;
const LABEL_LENGTH_MAX = 80;

/** A field of the event's data when it has the expected shape; null otherwise (it is then left out). */
function field(data: unknown, key: string, shape: RegExp): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const value = (data as Record<string, unknown>)[key];
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  return typeof text === 'string' && shape.test(text) ? text : null;
}

/**
 * Pure: a label someone typed, made safe for a subject line: no control, line-break, bidi or invisible format
 * characters (new labels cannot hold them; one stored before that rule must not reorder the email), bounded.
 */
export function plainLabel(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const clean = withoutHiddenCharacters(value).trim();
  if (clean === '') return null;
  return clean.length > LABEL_LENGTH_MAX ? `${clean.slice(0, LABEL_LENGTH_MAX - 1)}…` : clean;
}

/** Pure: text as HTML text or attribute content. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function readableTime(iso: string): string {
  return iso.replace('T', ' ').replace(/(\.[0-9]+)?Z$/, ' UTC');
}

interface Content {
  subject: string;
  intro: string;
  facts: Array<[string, string | null]>;
  /** A path of the dashboard (router.ts): where to act on it. */
  path: string;
  action: string;
  outro?: string;
}

const SECURITY_WHAT: Record<string, string> = {
  'security.password_changed': 'The account’s password was changed.',
  'security.factor_added': 'A second factor was added to the account.',
  'security.factor_removed': 'A second factor was removed from the account.',
};

const FACTORS: Record<string, string> = { totp: 'authenticator app', passkey: 'passkey' };

function walletPath(walletId: string | null, kind: 'master' | 'agent' = 'agent'): string {
  if (kind === 'master') return '/';
  return walletId === null ? '/agents' : `/agents/${walletId}`;
}

/** What every event's mail reads of the wallet it is about. */
interface Subject {
  data: unknown;
  walletId: string | null;
  wallet: MailInput['wallet'];
  /** The wallet's label, "master wallet", or its id; null when the event names no wallet. */
  label: string | null;
}

/** The mail of an event: a membership change, one of the events below by type, or a security notice. */
function content(input: MailInput): Content {
  const membership = memberContent(input);
  if (membership !== null) return membership;
  const { data } = input;
  const walletId = field(data, 'walletId', ID);
  const wallet = walletId === null ? null : input.wallet;
  const label = plainLabel(wallet?.label) ?? (wallet?.kind === 'master' ? 'master wallet' : walletId);
  const build = CONTENT_OF.get(input.eventType) ?? securityChanged;
  return build({ data, walletId, wallet, label }, input);
}

function approvalRequested({ data, walletId, label }: Subject): Content {
  const amount = amountField(data, 'amount');
  return {
    subject: `Approval needed: ${amount ?? 'a payment'}${amount === null ? '' : ' USDC'} from ${label ?? 'an agent wallet'}`,
    intro: 'An agent asks for a payment that needs your approval.',
    facts: [
      ['Amount', amount === null ? null : `${amount} USDC`],
      ['Agent wallet', label],
      ['To', field(data, 'toAddress', ADDRESS)],
      ['Payment', field(data, 'id', ID)],
      ['Expires', mapTime(field(data, 'expiresAt', TIME))],
    ],
    path: walletId === null ? '/approvals' : `/agents/${walletId}?tab=approvals`,
    action: 'Review the payment',
    outro: 'Nothing is paid until it is approved; it is rejected when it expires.',
  };
}

function walletFrozen({ data }: Subject): Content {
  const id = field(data, 'id', ID);
  const name = plainLabel((data as { label?: unknown } | null)?.label) ?? id;
  const automatic = (data as { reason?: unknown } | null)?.reason === 'auto_freeze';
  return {
    subject: `Agent wallet frozen: ${name ?? 'an agent wallet'}`,
    intro: automatic
      ? 'An agent wallet was frozen automatically after repeated denied payments.'
      : 'An agent wallet was frozen: it makes no payment until an owner unfreezes it.',
    facts: [
      ['Agent wallet', name],
      ['Balance', mapAmount(amountField(data, 'balance'))],
    ],
    path: walletPath(id),
    action: 'Open the wallet',
  };
}

function withdrawalAddressAdded({ data }: Subject): Content {
  return {
    subject: 'A withdrawal address was added',
    intro:
      'An address was added to the master wallet’s withdrawal address book. If nobody in your ' +
      'organization added it, remove it before it becomes usable.',
    facts: [
      ['Address', field(data, 'address', ADDRESS)],
      ['Label', plainLabel((data as { label?: unknown } | null)?.label)],
      ['Usable from', mapTime(field(data, 'activatesAt', TIME))],
    ],
    path: '/',
    action: 'Review the address book',
  };
}

function balanceLow({ data, walletId, wallet, label }: Subject): Content {
  return {
    subject: `Balance low: ${label ?? 'the master wallet'}`,
    intro: 'A wallet’s balance fell below the amount of your alert.',
    facts: [
      ['Wallet', label ?? 'master wallet'],
      ['Balance', mapAmount(amountField(data, 'balance'))],
      ['Alert below', mapAmount(amountField(data, 'threshold') ?? amountField(data, 'amount'))],
    ],
    path: walletId === null ? '/' : walletPath(walletId, wallet?.kind),
    action: 'Open the wallet',
  };
}

function budgetThreshold({ data, walletId, label }: Subject): Content {
  const percent = field(data, 'percent', PERCENT);
  return {
    subject: `Budget ${percent === null ? 'threshold' : `${percent}%`} reached: ${label ?? 'an agent wallet'}`,
    intro: 'An agent wallet’s spending reached the share of a cap your alert watches.',
    facts: [
      ['Agent wallet', label],
      ['Share of the cap', percent === null ? null : `${percent}%`],
      ['Cap', mapAmount(amountField(data, 'limit'))],
      ['Spent', mapAmount(amountField(data, 'spent'))],
    ],
    path: walletPath(walletId),
    action: 'Open the wallet',
  };
}

function treasuryAtRisk({ data }: Subject): Content {
  return {
    subject: 'Treasury at risk above your alert',
    intro:
      'What a breach of the server could take now (the float plus the rest of the period’s allowance) rose above ' +
      'the amount of your alert.',
    facts: [
      ['At risk', mapAmount(amountField(data, 'atRisk'))],
      ['Alert above', mapAmount(amountField(data, 'threshold'))],
    ],
    path: '/',
    action: 'Review the treasury',
  };
}

function securityChanged({ data }: Subject, input: MailInput): Content {
  const what = SECURITY_WHAT[input.eventType] ?? 'The account’s security settings changed.';
  const detail = (data as { detail?: unknown } | null)?.detail;
  const factor = FACTORS[String((detail as { factor?: unknown } | null | undefined)?.factor)] ?? null;
  const ip = (data as { ip?: unknown } | null)?.ip;
  const who = (data as { member?: { email?: unknown } } | null)?.member?.email;
  return {
    subject: `Security: ${what.replace(/\.$/, '').replace('The account’s', 'the account’s')}`,
    intro: `${what} If this was not you or someone you trust, sign in and secure the account now.`,
    facts: [
      ['Member', typeof who === 'string' && MEMBER_EMAIL.test(who) ? who : null],
      ['Factor', factor],
      ['From address', typeof ip === 'string' && isIP(ip) !== 0 ? ip : null],
    ],
    path: '/security',
    action: 'Review security',
  };
}

/** The mail of each event type with one of its own; any other is a security notice. */
const CONTENT_OF = new Map<string, (subject: Subject, input: MailInput) => Content>([
  ['approval.requested', approvalRequested],
  ['wallet.frozen', walletFrozen],
  ['withdrawal_address.added', withdrawalAddressAdded],
  ['balance.low', balanceLow],
  ['budget.threshold', budgetThreshold],
  ['treasury.at_risk', treasuryAtRisk],
]);

const ROLE_WORDS: Record<Role, string> = {
  owner: 'owner (everything, members included)',
  admin: 'admin (wallets, keys, policies and webhooks)',
  approver: 'approver (approves and rejects payments)',
  viewer: 'viewer (reads everything)',
};

/** A membership event's mail, to the owners or to the member it is about; null for any other event. */
function memberContent(input: MailInput): Content | null {
  const { data } = input;
  const detail = (data as { detail?: Record<string, unknown> } | null)?.detail ?? {};
  const role = (key: string) => (isRole(detail[key]) ? detail[key] : null);
  const emailOf = (value: unknown) => (typeof value === 'string' && MEMBER_EMAIL.test(value) ? value : null);
  const member = emailOf((data as { member?: { email?: unknown } } | null)?.member?.email);
  const by = emailOf((data as { by?: { email?: unknown } } | null)?.by?.email);
  const ip = (data as { ip?: unknown } | null)?.ip;
  const from: Array<[string, string | null]> = [
    ['By', by],
    ['From address', typeof ip === 'string' && isIP(ip) !== 0 ? ip : null],
  ];
  const byWhom = by === null ? '' : ` by ${by}`;
  switch (input.eventType) {
    case 'security.member_invited': {
      const invited = role('role');
      return {
        subject: `Security: ${member ?? 'someone'} was invited as ${invited ?? 'a member'}`,
        intro:
          `${member ?? 'Someone'} was invited${byWhom} to join your organization as ` +
          `${invited === null ? 'a member' : ROLE_WORDS[invited]}. If nobody meant to, revoke the invitation now.`,
        facts: [['Invited', member], ['Role', invited], ...from],
        path: '/members',
        action: 'Review members',
      };
    }
    case 'security.member_role_changed':
      return roleChangeContent(
        input.aboutRecipient === true,
        member,
        [role('from'), role('to')],
        byWhom,
        from,
      );
    case 'security.member_removed':
      return removalContent(input.aboutRecipient === true, member, detail, byWhom, from);
    default:
      return null;
  }
}

function roleChangeContent(
  aboutRecipient: boolean,
  member: string | null,
  [before, after]: [Role | null, Role | null],
  byWhom: string,
  from: Array<[string, string | null]>,
): Content {
  const change = `from ${before ?? 'their role'} to ${after === null ? 'another role' : ROLE_WORDS[after]}`;
  const facts: Array<[string, string | null]> = [
    ['Member', member],
    ['Was', before],
    ['Now', after],
    ...from,
  ];
  if (aboutRecipient) {
    return {
      subject: `Security: your role is now ${after ?? 'changed'}`,
      intro: `Your role in the organization was changed ${change}${byWhom}. If you did not expect it, tell an owner.`,
      facts,
      path: '/members',
      action: 'Open the organization',
    };
  }
  return {
    subject: `Security: ${member ?? 'a member'} is now ${after ?? 'in another role'}`,
    intro:
      `The role of ${member ?? 'a member'} was changed ${change}${byWhom}. If nobody meant to, change it back ` +
      'and secure the account that did it.',
    facts,
    path: '/members',
    action: 'Review members',
  };
}

function removalContent(
  aboutRecipient: boolean,
  member: string | null,
  detail: Record<string, unknown>,
  byWhom: string,
  from: Array<[string, string | null]>,
): Content {
  const count = (key: string) =>
    typeof detail[key] === 'string' && /^[0-9]{1,6}$/.test(detail[key]) ? detail[key] : null;
  const facts: Array<[string, string | null]> = [
    ['Member', member],
    ['Role', isRole(detail.role) ? detail.role : null],
    ['API keys revoked', count('revokedKeys')],
    ['Connected apps revoked', count('revokedOAuth')],
    ['API keys kept working', count('keptKeys')],
    ['Connected apps kept working', count('keptOAuth')],
    ...from,
  ];
  if (aboutRecipient) {
    return {
      subject: 'Security: you were removed from an organization',
      intro:
        `You were removed from your organization in Agent Wallet${byWhom}: your sessions ended and you can no ` +
        'longer log in. If you did not expect it, tell an owner.',
      facts,
      path: '/',
      action: 'Open Agent Wallet',
    };
  }
  return {
    subject: `Security: ${member ?? 'a member'} was removed`,
    intro:
      `${member ?? 'A member'} was removed from your organization${byWhom}: their sessions ended, and so did the ` +
      'API keys and connected apps they made unless they were kept. If nobody meant to, secure the account that did it.',
    facts,
    path: '/members',
    action: 'Review members',
  };
}

/** A member's email as signup accepts it (trimmed, lower-case, no spaces or angle brackets): shown as is. */
const MEMBER_EMAIL = /^[a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,190}$/;

const mapTime = (iso: string | null) => (iso === null ? null : readableTime(iso));
const mapAmount = (amount: string | null) => (amount === null ? null : `${amount} USDC`);

/** `12.500000` → `12.5`, `3.000000` → `3`: as people write amounts. */
function shortAmount(amount: string | null): string | null {
  return amount === null ? null : amount.replace(/(\.[0-9]*?)0+$/, '$1').replace(/\.$/, '');
}

/** Pure: the mail of an event: a subject, a plain-text part and an HTML part, with a link into the dashboard. */
export function renderMail(input: MailInput): Mail {
  const c = content(input);
  const link = `${input.publicUrl}${c.path}`;
  const facts: Array<[string, string]> = [
    ...c.facts.filter((f): f is [string, string] => f[1] !== null),
    ['When', readableTime(new Date(input.createdAtMs).toISOString())],
  ];
  const subject = plainLabel(c.subject) ?? 'Agent Wallet';
  const text = [
    c.intro,
    '',
    ...facts.map(([name, value]) => `${name}: ${value}`),
    '',
    `${c.action}: ${link}`,
    ...(c.outro === undefined ? [] : ['', c.outro]),
    '',
    '— Agent Wallet. Choose which emails you receive under Security in the dashboard.',
    '',
  ].join('\n');
  const rows = facts
    .map(
      ([name, value]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`,
    )
    .join('');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">',
    `<p>${escapeHtml(c.intro)}</p>`,
    `<table>${rows}</table>`,
    `<p><a href="${escapeHtml(link)}">${escapeHtml(c.action)}</a></p>`,
    ...(c.outro === undefined ? [] : [`<p>${escapeHtml(c.outro)}</p>`]),
    '<p style="color:#666;font-size:small">Agent Wallet. Choose which emails you receive under Security in the dashboard.</p>',
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

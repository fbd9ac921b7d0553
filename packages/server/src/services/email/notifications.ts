// A member's own choice of the email they receive (contract section 10): every kind their role receives is on
// until they turn it off. Only the kinds turned off are stored (email_preferences), so a kind added later starts
// on, and a member promoted to a role that receives more gets those too.
import { EMAIL_KINDS, type EmailKind, kindsForRole, parseOffList } from '../../domain/email/mail.ts';
import type { Role } from '../../domain/organizations/roles.ts';
import type { ServiceContext } from '../context.ts';

export interface NotificationSettings {
  /** SMTP is configured on the service: without it no email is sent, whatever is chosen. */
  emailConfigured: boolean;
  /** The member's choice for each kind (true: on, the default). */
  email: Record<EmailKind, boolean>;
  /** The kinds the member's role receives; the others are never sent to them, whatever `email` says. */
  emailKindsForRole: EmailKind[];
}

export interface NotificationService {
  get(member: { userId: string; role: Role }): Promise<NotificationSettings>;
  update(
    member: { userId: string; role: Role },
    change: Partial<Record<EmailKind, boolean>>,
  ): Promise<NotificationSettings>;
}

export function createNotificationService(ctx: ServiceContext): NotificationService {
  const { store, writer, clock } = ctx;

  function settings(role: Role, off: ReadonlySet<EmailKind>): NotificationSettings {
    const email = Object.fromEntries(EMAIL_KINDS.map((kind) => [kind, !off.has(kind)])) as Record<
      EmailKind,
      boolean
    >;
    return { emailConfigured: ctx.events.email, email, emailKindsForRole: kindsForRole(role) };
  }

  async function offOf(userId: string): Promise<Set<EmailKind>> {
    const row = await store.db
      .selectFrom('email_preferences')
      .select('off_json')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return parseOffList(row?.off_json ?? null);
  }

  return {
    async get(member) {
      return settings(member.role, await offOf(member.userId));
    },
    async update(member, change) {
      const nowMs = BigInt(clock.nowMs());
      const off = await writer.run(async (trx) => {
        const row = await trx
          .selectFrom('email_preferences')
          .select('off_json')
          .where('user_id', '=', member.userId)
          .executeTakeFirst();
        const next = parseOffList(row?.off_json ?? null);
        for (const kind of EMAIL_KINDS) {
          if (change[kind] === true) next.delete(kind);
          if (change[kind] === false) next.add(kind);
        }
        const offJson = JSON.stringify(EMAIL_KINDS.filter((kind) => next.has(kind)));
        await trx
          .insertInto('email_preferences')
          .values({ user_id: member.userId, off_json: offJson, updated_at_ms: nowMs })
          .onConflict((oc) => oc.column('user_id').doUpdateSet({ off_json: offJson, updated_at_ms: nowMs }))
          .execute();
        return next;
      });
      return settings(member.role, off);
    },
  };
}

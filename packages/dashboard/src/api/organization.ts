// The organization (contract section 9): members and their roles, invitations, the organization's settings and
// its audit log, and signing up with an invitation. The SDK has no methods for these routes yet, so they go
// through ApiClient.request (the same adapter: rate limits, 401, step-up), typed with the SDK's wire types.
import type { Session as AuthResult } from '@agent-wallet/sdk';
import type { Role } from '../roles.ts';
import type { Answer } from './custody.ts';
import type { Requester } from './request.ts';

export type Member = Answer<'listMembers'>['items'][number];
export type Invitation = Answer<'listInvitations'>['items'][number];
/** The answer to an invitation: its token is in it once, never again. */
export type CreatedInvitation = Answer<'inviteMember'>;
export type Organization = Answer<'getOrganization'>;
export type AuditPage = Answer<'listAudit'>;
export type AuditEntry = AuditPage['items'][number];

export interface AuditFilter {
  walletId?: string;
  /** A member's id or an API key's id. */
  actor?: string;
}

const id = encodeURIComponent;

export function organizationApi(client: Requester) {
  return {
    signupWithInvitation: (email: string, password: string, invitationToken: string) =>
      client.request<AuthResult>('POST', '/auth/signup', { body: { email, password, invitationToken } }),

    organization: () => client.request<Organization>('GET', '/organization'),
    updateOrganization: (change: { requireMfa: boolean }) =>
      client.request<Organization>('PATCH', '/organization', { body: change }),

    members: () => client.request<Answer<'listMembers'>>('GET', '/members'),
    changeRole: (memberId: string, role: Role) =>
      client.request<Member>('PATCH', `/members/${id(memberId)}`, { body: { role } }),
    /** `keepKeys`: the API keys and OAuth connections the member made keep working (else they end with them). */
    removeMember: (memberId: string, keepKeys: boolean) =>
      client.request<Answer<'removeMember'>>('DELETE', `/members/${id(memberId)}`, {
        query: { keepKeys: String(keepKeys) },
      }),

    invitations: () => client.request<Answer<'listInvitations'>>('GET', '/members/invitations'),
    invite: (email: string, role: Role) =>
      client.request<CreatedInvitation>('POST', '/members/invitations', { body: { email, role } }),
    revokeInvitation: (invitationId: string) =>
      client.request<Answer<'revokeInvitation'>>('DELETE', `/members/invitations/${id(invitationId)}`),

    audit: (page: number, limit: number, filter: AuditFilter = {}) =>
      client.request<AuditPage>('GET', '/audit', { query: { page, limit, ...filter } }),
  };
}

export type OrganizationApi = ReturnType<typeof organizationApi>;

// Invitation links (contract section 9): the owner's invitation answers a token once; the dashboard turns it into
// a link the owner passes on, and the sign-up form reads it back (the email filled in, the token sent as
// invitationToken). Pure: unit-tested.

export interface InvitationLink {
  token: string;
  /** The invited address (the server refuses any other); empty when the link did not carry it. */
  email: string;
}

/** `${origin}/?invite=<token>&email=<email>`: opens the sign-up form, filled in. */
export function invitationLink(origin: string, token: string, email: string): string {
  const query = new URLSearchParams({ invite: token, email });
  return `${origin.replace(/\/+$/, '')}/?${query.toString()}`;
}

/** The invitation in a page's query string (`?invite=…&email=…`), or null. */
export function invitationFrom(search: string): InvitationLink | null {
  const query = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
  const token = (query.get('invite') ?? '').trim();
  if (token === '' || token.length > 128) return null;
  return { token, email: (query.get('email') ?? '').trim() };
}

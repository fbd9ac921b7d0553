// A merchant list's host as the server takes it; its own module (no imports) so the wire-lists test can read it.
export const HOST_LENGTH_MAX = 253;
/**
 * The server's pattern for a merchant list's host (routes/policies/schemas.ts, HOST_PATTERN): labels of letters,
 * digits and inner hyphens (63 at most) joined by dots, with `*.` in front for every subdomain of a domain.
 */
export const HOST_PATTERN =
  /^(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

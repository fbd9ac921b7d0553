// What an agent may put in the request x402_fetch makes for it, the pure part. Header names and values are
// checked before use (a CR or LF would split the request, and Node refuses what it cannot send with an
// exception, not a reason).

/** RFC 9110 `token`: what a header name is made of. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * Visible ASCII, space and tab. RFC 9110 also tolerates obsolete bytes above 0x7F, but clients disagree on
 * their encoding (Latin-1 or UTF-8), and new fields are to use ASCII; CR, LF, NUL and other controls never.
 */
export const HEADER_VALUE_PATTERN = /^[\t\x20-\x7E]*$/;

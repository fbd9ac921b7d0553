// What a log line may say about a request or an error: query strings lose their values (`?api_key=svc_live_…`
// must never reach a log), and anything shaped like an API key, a JWT or a webhook secret is masked wherever
// it appears in an error's message or stack. Pure functions; the logger applies them as serializers.

const SECRET_PATTERNS = [
  /svc_live_[0-9A-Za-z]+/gi, // API keys (in any case: a recased key still gives its random part away)
  /whsec_[0-9A-Za-z]+/g, // webhook secrets
  /eyJ[0-9A-Za-z_-]+\.[0-9A-Za-z_-]+\.[0-9A-Za-z_-]+/g, // JWTs (base64url JSON header)
];

/** Secrets with no recognisable shape (the treasury mnemonic: ordinary words), masked wherever they appear. */
const EXACT_SECRETS = new Set<string>();
const EXACT_SECRETS_MAX = 16;

/** Masks this exact text in every later log line (bounded: a handful of configured secrets). */
export function registerSecret(secret: string): void {
  if (secret.length < 16 || EXACT_SECRETS.size >= EXACT_SECRETS_MAX) return;
  EXACT_SECRETS.add(secret);
}

/** Masks every secret-shaped substring, and every registered secret. */
export function scrubSecrets(text: string): string {
  let scrubbed = text;
  for (const pattern of SECRET_PATTERNS) scrubbed = scrubbed.replace(pattern, '[redacted]');
  for (const secret of EXACT_SECRETS) scrubbed = scrubbed.replaceAll(secret, '[redacted]');
  return scrubbed;
}

/** `/path?a=1&b` → `/path?a=[redacted]&b=[redacted]`: names stay (they help debugging), values go. */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return scrubSecrets(url);
  const names = url
    .slice(at + 1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => `${part.split('=', 1)[0]}=[redacted]`);
  return scrubSecrets(`${url.slice(0, at)}?${names.join('&')}`);
}

interface RequestLike {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
}

export function requestForLog(req: RequestLike) {
  return {
    method: req.method,
    url: redactQuery(req.url ?? ''),
    host: req.host,
    remoteAddress: req.ip,
  };
}

export function errorForLog(error: unknown) {
  if (!(error instanceof Error)) return { message: scrubSecrets(String(error)) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: scrubSecrets(error.message),
    stack: scrubSecrets(error.stack ?? ''),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

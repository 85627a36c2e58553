/**
 * Upstream error text is shown to the model ("Basecamp said: …"), so it passes through here
 * first: an upstream that echoes the request (its Authorization header, a form with the client
 * secret) must not put a credential into a tool result.
 */

const REDACTED = '[redacted]';
/** Known secrets shorter than this are not searched for: they would match ordinary words. */
const MIN_SECRET_LENGTH = 6;

type Replacer = (match: string, ...groups: string[]) => string;
const whole: Replacer = () => REDACTED;

const TOKEN_SHAPES: readonly (readonly [RegExp, Replacer])[] = [
  // An Authorization header value, whatever its scheme's token looks like.
  [/\b(Bearer|Basic|Token|Bot)\s+[^\s"',;]+/gi, (_match, scheme) => `${scheme} ${REDACTED}`],
  // A JWT or anything shaped like one: three base64url parts, the first a JSON object.
  [/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, whole],
  // `"refresh_token": "…"`, `client_secret=…`, `password: …`, `api-key=…`.
  [
    /\b([\w-]*(?:token|secret|password|passwd|api[_-]?key|authorization)[\w-]*)(["']?\s*[:=]\s*["']?)(?!(?:Bearer|Basic|Token|Bot)\s|\[redacted\])[^\s"',;&}]+/gi,
    (_match, key, separator) => `${key}${separator}${REDACTED}`,
  ],
  // Long hex runs (API keys, session ids, digests of secrets).
  [/\b[0-9a-f]{32,}\b/gi, whole],
  // Long base64url runs that mix letters and digits (a '/' or '+' splits standard base64 into
  // runs that are still long; paths and prose do not reach 32 such characters without a break).
  [/(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{32,}={0,2}/g, whole],
];

/**
 * `text` with anything token-shaped and every known secret replaced by `[redacted]`: Bearer and
 * Basic values, JWT-like strings, `token=`/`secret:` pairs, hex runs of 32+ and mixed base64url runs
 * of 32+ characters, and each of `secrets` (6+ characters) wherever it appears.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  let result = text;
  const known = [...new Set([...secrets].filter((secret): secret is string => !!secret))]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    // Longest first, so a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  for (const secret of known) result = result.split(secret).join(REDACTED);
  for (const [pattern, replace] of TOKEN_SHAPES) {
    result = result.replace(pattern, (match: string, ...groups: string[]) =>
      match === REDACTED ? match : replace(match, ...groups),
    );
  }
  return result;
}

const MAX_MESSAGE_LENGTH = 300;

/**
 * The human-readable part of an upstream error body, cleaned for quoting: `{ error }`,
 * `{ message }` (a string or a list, as NestJS sends), `{ errors }` (a list or a field map, as
 * Rails sends), `{ detail }` (FastAPI), or a plain-text body. Tags and control characters are
 * removed, secrets redacted, and the result cut to 300 characters. `undefined` when there is
 * nothing readable.
 */
export function upstreamMessage(
  body: unknown,
  secrets: Iterable<string | undefined> = [],
  maxLength = MAX_MESSAGE_LENGTH,
): string | undefined {
  const raw = rawMessage(body);
  if (raw === undefined) return undefined;
  const withoutTags = raw.replace(/<[^>]*>/g, ' ');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters from upstream text
  const flat = withoutTags.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  if (!flat) return undefined;
  // Redact before cutting, so a secret split by the cut is still found.
  const text = redactSecrets(flat, secrets);
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}

function rawMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  for (const candidate of [
    record.error_description,
    record.message,
    record.error,
    record.errors,
    record.detail,
  ]) {
    if (typeof candidate === 'string' && candidate.trim()) return candidate;
    if (Array.isArray(candidate)) {
      const joined = candidate.filter((item) => typeof item === 'string').join('; ');
      if (joined) return joined;
    } else if (candidate && typeof candidate === 'object') {
      const joined = Object.entries(candidate as Record<string, unknown>)
        .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(', ') : String(value)}`)
        .join('; ');
      if (joined) return joined;
    }
  }
  return undefined;
}

/**
 * Secret redaction for everything that reaches a log. pino's path-based `redact` cannot express "any key
 * named like a secret at any depth", and secrets also hide inside strings (URLs with a token in the
 * query, `Bearer …` headers echoed in messages), so both keys and string values are scrubbed here.
 */

export const REDACTED = '[REDACTED]';

/** A key is secret when one of its words is one of these… */
const SECRET_WORDS = new Set([
  'authorization',
  'authorisation',
  'consent',
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'credential',
  'credentials',
  'apikey',
  'cookie',
  'signature',
  'ciphertext',
  'otp',
  'pin',
  'privatekey',
]);

/** …unless its last word says it names, describes or locates the secret rather than holding it. */
const DESCRIPTIVE_LAST_WORDS = new Set([
  'id',
  'ids',
  'status',
  'type',
  'kind',
  'url',
  'at',
  'expiry',
  'expires',
  'count',
  'scope',
  'length',
  'name',
]);

/** camelCase, snake_case, kebab-case and dotted keys, split into lower-case words. */
function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/**
 * `code` names both error codes (which logs need) and SCA one-time codes (which they must never hold).
 * Error codes are words (VALIDATION_FAILED) or numbers (424, 10600); a one-time code is a short string
 * with a digit in it, so the value decides.
 */
const OTP_VALUE = /^\s*(?=[A-Za-z0-9-]*\d)[A-Za-z0-9-]{4,12}\s*$/;

/** What a key's name says of its value: secret, not, or (`code`) that the value decides. */
type KeyVerdict = 'secret' | 'plain' | 'otp-code';

function verdictOf(key: string): KeyVerdict {
  const lower = key.toLowerCase();
  if (lower === 'code') return 'otp-code';
  if (lower === 'scacode' || lower === 'sca_code') return 'secret';
  const words = wordsOf(key);
  // The PSU headers (psu-id, psuCorporateId, psu-ip-address) hold a user's bank login ids and address.
  if (words[0] === 'psu') return 'secret';
  if (words.length === 0 || DESCRIPTIVE_LAST_WORDS.has(words[words.length - 1])) return 'plain';
  // Adjacent pairs catch split spellings: api_key, sca-code, private.key.
  const pairs = words.slice(1).map((w, i) => `${words[i]}${w}`);
  return [...words, ...pairs].some((w) => SECRET_WORDS.has(w) || w === 'scacode') ? 'secret' : 'plain';
}

/**
 * Verdicts of the keys met so far: every log line (the access log's included) judges the same few keys.
 * Bounded, since logged objects may carry keys from outside (an upstream's error body).
 */
const VERDICTS = new Map<string, KeyVerdict>();
const VERDICTS_KEPT = 2_000;

export function isSecret(key: string, value: unknown): boolean {
  if (value === null || value === undefined || value === '') return false;
  let verdict = VERDICTS.get(key);
  if (verdict === undefined) {
    verdict = verdictOf(key);
    if (VERDICTS.size < VERDICTS_KEPT) VERDICTS.set(key, verdict);
  }
  if (verdict === 'otp-code') return typeof value === 'string' && OTP_VALUE.test(value);
  return verdict !== 'plain';
}

/** Query and form parameters: judged by name like keys; `code` and `state` are OAuth secrets in a URL. */
const PARAM = /([?&;])([A-Za-z0-9_.-]+)=([^&#\s"']+)/g;
const URL_SECRET_PARAMS = new Set(['code', 'state', 'key', 'sig']);

function redactParams(text: string): string {
  return text.replace(PARAM, (match, separator: string, name: string, value: string) =>
    URL_SECRET_PARAMS.has(name.toLowerCase()) || isSecret(name, value)
      ? `${separator}${name}=${REDACTED}`
      : match,
  );
}

/** Secret-shaped substrings inside free text. */
const SECRET_IN_TEXT: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\b(mk|us|whsec)_[A-Za-z0-9_+/=-]{6,}/g, `$1_${REDACTED}`],
  // Consent tokens are JWTs; one interpolated into an error message is still recognisable by its shape.
  [/\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*)?/g, REDACTED],
];

/**
 * What every pattern above needs somewhere in the text (a scheme word, a token prefix, a JWT's start):
 * most logged strings (ids, routes, messages, a URL's query) have none and skip them.
 */
const MAYBE_TOKEN = /bearer|basic|mk_|us_|whsec_|eyJ/i;

export function redactText(text: string): string {
  let out = text;
  if (MAYBE_TOKEN.test(out)) {
    for (const [pattern, replacement] of SECRET_IN_TEXT) out = out.replace(pattern, replacement);
  }
  // Parameters need their `=`.
  return out.includes('=') ? redactParams(out) : out;
}

/** Returns a redacted deep copy; never mutates its input (it may be a live request object). */
export function redact(value: unknown, depth = 0, visited?: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[Truncated]';
  // Made here, not as a default: most values logged (a message, an id) are strings.
  const seen = visited ?? new WeakSet<object>();
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
  if (value instanceof Error) {
    // The serialised form of an error (pino's `err` serializer is not used: this is it).
    const own = redact({ ...value }, depth + 1, seen) as Record<string, unknown>;
    return {
      type: value.name,
      message: redactText(value.message),
      stack: value.stack ? redactText(value.stack) : undefined,
      ...own,
      ...(value.cause !== undefined ? { cause: redact(value.cause, depth + 1, seen) } : {}),
    };
  }
  if (Buffer.isBuffer(value)) return `[Buffer ${value.length}]`;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = isSecret(key, v) ? REDACTED : redact(v, depth + 1, seen);
  }
  return out;
}

const ALREADY_REDACTED = Symbol('already redacted');

/**
 * The access log's line (one a request): its text fields redacted here, field by field, so the logger
 * need not copy the whole object again to judge keys it already knows.
 */
export function accessLogFields(fields: {
  reqId: string;
  method: string;
  url: string;
  route: string;
  status: number;
  ms: number;
}): Record<string, unknown> {
  return {
    [ALREADY_REDACTED]: true,
    reqId: redactText(fields.reqId),
    method: redactText(fields.method),
    url: redactText(fields.url),
    route: fields.route,
    status: fields.status,
    ms: fields.ms,
  };
}

/** Whether `object` came from {@link accessLogFields} (a symbol: nothing logged can claim it). */
export const isAlreadyRedacted = (object: object): boolean => ALREADY_REDACTED in object;

/**
 * Secret redaction for everything that reaches a log. pino's path-based `redact` cannot express "any key
 * named like a secret at any depth", and secrets also hide inside strings (URLs with a token in the
 * query, `Bearer …` headers echoed in messages), so both keys and string values are scrubbed here.
 */

export const REDACTED = '[REDACTED]';

/** Keys whose values are always secret, wherever they appear. */
const SECRET_KEY =
  /(authori[sz]ation|^consent$|consent-?token|token|secret|password|passwd|credential|api[-_]?key|sca[-_]?code|^otp$|cookie|signature|ciphertext|private[-_]?key)/i;

/** Keys that look secret by the pattern above but carry no secret. */
const SAFE_KEY =
  /^(tokenKeyId|secretKeyId|keyId|tokenType|consentId|consentStatus|statusCode|errorCode|code_?path)$/i;

/** Secret-shaped substrings inside free text. */
const SECRET_IN_TEXT: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\b(mk|us|whsec)_[A-Za-z0-9_+/=-]{6,}/g, `$1_${REDACTED}`],
  // Consent tokens are JWTs; one interpolated into an error message is still recognisable by its shape.
  [/\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*)?/g, REDACTED],
  [
    /([?&](?:consent|consentToken|oneTimeToken|token|code|password|secret|state)=)[^&#\s]+/gi,
    `$1${REDACTED}`,
  ],
];

export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_IN_TEXT) out = out.replace(pattern, replacement);
  return out;
}

/**
 * `code` names both error codes (which logs need) and SCA one-time codes (which they must never hold); an
 * OTP is all digits, an error code is a word or a number, so the value decides.
 */
const OTP_VALUE = /^\s*\d{4,12}\s*$/;

export function isSecret(key: string, value: unknown): boolean {
  if (value === null || value === undefined || value === '') return false;
  if (key.toLowerCase() === 'code') return typeof value === 'string' && OTP_VALUE.test(value);
  return SECRET_KEY.test(key) && !SAFE_KEY.test(key);
}

/** Returns a redacted deep copy; never mutates its input (it may be a live request object). */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[Truncated]';
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactText(value.message),
      stack: value.stack ? redactText(value.stack) : undefined,
      ...(redact({ ...value }, depth + 1, seen) as object),
    };
  }
  if (Buffer.isBuffer(value)) return `[Buffer ${value.length}]`;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = isSecret(key, v) ? REDACTED : redact(v, depth + 1, seen);
  }
  return out;
}

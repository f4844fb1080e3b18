import type { OpenAPIObject } from '@nestjs/swagger';
import { SECURITY_SCHEMES } from '#libs/http';

const LIMITED = new Set<string>([SECURITY_SCHEMES.merchant, SECURITY_SCHEMES.userSession]);
/** Answered before the caller is admitted (request-access.service.ts): no count, so no headers. */
const BEFORE_ADMISSION = new Set(['401', '403']);
/** `default` is any error, some answered before admission: left to the description below. */
const UNSAID = new Set(['default', ...BEFORE_ADMISSION]);
const AFTER =
  ' On a 400, absent when the request was refused before its caller was let in (a body that is no JSON, an overlong path parameter).';
/** The one status answered both before the caller is let in and after. */
const EITHER = '400';

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: `Requests allowed in the window (RATE_LIMIT_PER_MINUTE).${AFTER}` },
  'X-RateLimit-Remaining': { description: `Requests left in the current window.${AFTER}` },
  'X-RateLimit-Reset': { description: `Seconds until the window resets.${AFTER}` },
};

/**
 * The rate limit's headers on exactly the answers that carry them: those of an operation a merchant key
 * or user session calls, once its caller is let in (so not its 401 and 403). Operator, public and
 * webhook routes are not limited and send none. Declared here, once, beside the access rule.
 */
export function declareRateLimitHeaders(document: OpenAPIObject): void {
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations) as {
      security?: Record<string, unknown>[];
      responses?: Record<string, { headers?: Record<string, unknown> }>;
    }[]) {
      const limited = operation?.security?.some((s) => Object.keys(s).some((k) => LIMITED.has(k)));
      if (!limited || !operation.responses) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (UNSAID.has(status)) continue;
        response.headers = {
          ...response.headers,
          ...Object.fromEntries(
            Object.entries(RATE_LIMIT_HEADERS).map(([n, h]) => [
              n,
              { ...h, required: status !== EITHER, schema: { type: 'integer' } },
            ]),
          ),
        };
      }
    }
  }
}

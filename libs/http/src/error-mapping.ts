import { HttpException } from '@nestjs/common';
import {
  type Dependency,
  dependencyFailureOf,
  DomainError,
  ERROR_STATUS,
  ErrorCode,
  type ErrorDetail,
  type ErrorEnvelope,
} from '#libs/errors';
import { PATH_PARAMETER_MAX_LENGTH } from './malformed-input.js';

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
  /** Only unexpected failures are logged as errors with their stack; client mistakes are not our fault. */
  unexpected: boolean;
  /** Set when Postgres or Redis did not answer: logged once per outage, not per request. */
  outage?: Dependency;
}

/** How long a client is asked to wait when Postgres or Redis is down: restarts and failovers take seconds. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;
/** The readiness checks of our own infrastructure, as /health/ready names them. */
const OWN_DEPENDENCIES = new Set<string>(['postgres', 'redis']);

const STATUS_TO_CODE: Record<number, ErrorCode> = {
  400: ErrorCode.VALIDATION_FAILED,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.NOT_FOUND,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  429: ErrorCode.RATE_LIMITED,
  502: ErrorCode.UPSTREAM_UNAVAILABLE,
  503: ErrorCode.UPSTREAM_UNAVAILABLE,
  504: ErrorCode.UPSTREAM_UNAVAILABLE,
};

/** Other 4xx (415, 422, …) are the caller's malformed request: 400 VALIDATION_FAILED. */
function codeForStatus(status: number): ErrorCode {
  return STATUS_TO_CODE[status] ?? (status >= 500 ? ErrorCode.INTERNAL : ErrorCode.VALIDATION_FAILED);
}

/**
 * Errors raised by Fastify or a plugin before our code runs (bad JSON, body too large, wrong content
 * type, a malformed URL) carry `statusCode`. A 4xx there is the client's mistake and answered as such;
 * anything else is ours.
 */
interface ClientError {
  statusCode: number;
  code?: string;
  message: string;
}

function isClientError(e: unknown): e is ClientError {
  if (!(e instanceof Error)) return false;
  const status = (e as Error & { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

function clientMessage(e: ClientError): string {
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type; send application/json.';
    case 'FST_ERR_BAD_URL':
      return 'The request URL is malformed.';
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return `A path parameter is longer than ${PATH_PARAMETER_MAX_LENGTH} characters; no id is that long.`;
    default:
      return e.message;
  }
}

/** Prisma's known request errors, recognised by shape so this library does not depend on the client. */
interface PrismaKnownError {
  name: string;
  code: string;
}

function isPrismaKnownError(e: unknown): e is PrismaKnownError {
  return (
    e instanceof Error &&
    e.name === 'PrismaClientKnownRequestError' &&
    typeof (e as { code?: unknown }).code === 'string'
  );
}

/** Details from an HttpException body: our own `details`, or the failing checks of a Terminus health result. */
function detailsOf(response: unknown): ErrorDetail[] | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const body = response as { details?: unknown; status?: unknown; error?: unknown };
  if (Array.isArray(body.details)) return body.details as ErrorDetail[];
  if (body.status === 'error' && typeof body.error === 'object' && body.error !== null) {
    return Object.entries(body.error as Record<string, { detail?: unknown }>).map(([field, check]) => ({
      field,
      issue: typeof check?.detail === 'string' ? `down (${check.detail})` : 'down',
    }));
  }
  return undefined;
}

function envelope(
  code: ErrorCode,
  message: string,
  tracingId: string,
  extra: Pick<ErrorEnvelope['error'], 'details' | 'upstream' | 'retryAfterSeconds'> = {},
): ErrorEnvelope {
  return {
    error: {
      code,
      // The status always follows the code, so a client can rely on either.
      status: ERROR_STATUS[code],
      message,
      tracingId,
      ...(extra.details?.length ? { details: extra.details } : {}),
      ...(extra.upstream ? { upstream: extra.upstream } : {}),
      ...(extra.retryAfterSeconds !== undefined ? { retryAfterSeconds: extra.retryAfterSeconds } : {}),
    },
  };
}

function mapped(
  code: ErrorCode,
  message: string,
  tracingId: string,
  extra: Pick<ErrorEnvelope['error'], 'details' | 'upstream'> = {},
  headers: Record<string, string> = {},
): MappedError {
  const retryAfter = headers['retry-after'];
  return {
    status: ERROR_STATUS[code],
    body: envelope(code, message, tracingId, {
      ...extra,
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: Number(retryAfter) }),
    }),
    headers,
    unexpected: code === ErrorCode.INTERNAL,
  };
}

/** The single mapping from anything thrown to the error envelope (docs/errors.md). */
export function mapError(exception: unknown, tracingId: string): MappedError {
  if (exception instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (exception.extra.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(exception.extra.retryAfterSeconds);
    return mapped(exception.code, exception.message, tracingId, exception.extra, headers);
  }
  if (exception instanceof HttpException) {
    const raw = exception.getStatus();
    const details = detailsOf(exception.getResponse());
    const code = codeForStatus(raw);
    if (raw === 503 && details) {
      // Readiness: our own Postgres or Redis down is SERVICE_UNAVAILABLE; only the upstream, UPSTREAM_UNAVAILABLE.
      const ours = details.some((d) => OWN_DEPENDENCIES.has(d.field));
      return mapped(
        ours ? ErrorCode.SERVICE_UNAVAILABLE : ErrorCode.UPSTREAM_UNAVAILABLE,
        'A dependency is unavailable.',
        tracingId,
        { details },
        { 'retry-after': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
      );
    }
    const message = code === ErrorCode.INTERNAL ? 'Internal error.' : exception.message;
    return mapped(code, message, tracingId, { details });
  }
  const dependency = dependencyFailureOf(exception);
  if (dependency) {
    return {
      ...mapped(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The service is briefly unavailable; retry after the Retry-After delay (with the same Idempotency-Key for a POST).',
        tracingId,
        {},
        { 'retry-after': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
      ),
      outage: dependency,
    };
  }
  if (isClientError(exception))
    return mapped(codeForStatus(exception.statusCode), clientMessage(exception), tracingId);
  if (isPrismaKnownError(exception)) {
    switch (exception.code) {
      case 'P2002':
        return mapped(ErrorCode.CONFLICT, 'The resource already exists.', tracingId);
      case 'P2025':
        return mapped(ErrorCode.NOT_FOUND, 'Not found.', tracingId);
      case 'P2000':
        return mapped(ErrorCode.VALIDATION_FAILED, 'A value is too long.', tracingId);
    }
  }
  return mapped(
    ErrorCode.INTERNAL,
    `Internal error. Quote tracingId ${tracingId} when reporting it.`,
    tracingId,
  );
}

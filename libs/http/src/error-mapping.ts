import { HttpException } from '@nestjs/common';
import { DomainError, ERROR_STATUS, ErrorCode, type ErrorDetail, type ErrorEnvelope } from './error-code.js';

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
  /** Only unexpected failures are logged as errors with their stack; client mistakes are not our fault. */
  unexpected: boolean;
}

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

function codeForStatus(status: number): ErrorCode {
  return STATUS_TO_CODE[status] ?? (status >= 500 ? ErrorCode.INTERNAL : ErrorCode.VALIDATION_FAILED);
}

/** Fastify's own errors (bad JSON, body too large, wrong content type) carry `statusCode` and an FST_ code. */
interface FastifyLikeError {
  statusCode: number;
  code?: string;
  message: string;
}

function isFastifyError(e: unknown): e is FastifyLikeError {
  if (!(e instanceof Error)) return false;
  const candidate = e as Error & { statusCode?: unknown; code?: unknown };
  return (
    typeof candidate.statusCode === 'number' &&
    typeof candidate.code === 'string' &&
    candidate.code.startsWith('FST_')
  );
}

/** Prisma's known request errors, recognised by shape so this library does not depend on the client. */
interface PrismaKnownError {
  name: string;
  code: string;
  meta?: { target?: unknown; modelName?: string };
}

function isPrismaKnownError(e: unknown): e is PrismaKnownError {
  return (
    e instanceof Error &&
    e.name === 'PrismaClientKnownRequestError' &&
    typeof (e as { code?: unknown }).code === 'string'
  );
}

function fastifyMessage(e: FastifyLikeError): string {
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type; send application/json.';
    default:
      return e.statusCode < 500 ? e.message : 'Internal error.';
  }
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

function build(
  code: ErrorCode,
  status: number,
  message: string,
  tracingId: string,
  extra: Pick<ErrorEnvelope['error'], 'details' | 'upstream'> = {},
): ErrorEnvelope {
  return {
    error: {
      code,
      status,
      message,
      tracingId,
      ...(extra.details?.length ? { details: extra.details } : {}),
      ...(extra.upstream ? { upstream: extra.upstream } : {}),
    },
  };
}

/** The single mapping from anything thrown to the error envelope of API.md. */
export function mapError(exception: unknown, tracingId: string): MappedError {
  if (exception instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (exception.extra.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(exception.extra.retryAfterSeconds);
    return {
      status: exception.status,
      body: build(exception.code, exception.status, exception.message, tracingId, exception.extra),
      headers,
      unexpected: exception.status >= 500 && exception.code === ErrorCode.INTERNAL,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const details = detailsOf(response);
    const message =
      status === 503 && details
        ? 'A dependency is unavailable.'
        : status >= 500 && status !== 503
          ? 'Internal error.'
          : exception.message;
    return {
      status,
      body: build(codeForStatus(status), status, message, tracingId, { details }),
      headers: {},
      unexpected: status >= 500 && status !== 503,
    };
  }
  if (isFastifyError(exception)) {
    const status = exception.statusCode;
    return {
      status,
      body: build(codeForStatus(status), status, fastifyMessage(exception), tracingId),
      headers: {},
      unexpected: status >= 500,
    };
  }
  if (isPrismaKnownError(exception)) {
    switch (exception.code) {
      case 'P2002':
        return {
          status: 409,
          body: build(ErrorCode.CONFLICT, 409, 'The resource already exists.', tracingId),
          headers: {},
          unexpected: false,
        };
      case 'P2025':
        return {
          status: 404,
          body: build(ErrorCode.NOT_FOUND, 404, 'Not found.', tracingId),
          headers: {},
          unexpected: false,
        };
      case 'P2000':
        return {
          status: 400,
          body: build(ErrorCode.VALIDATION_FAILED, 400, 'A value is too long.', tracingId),
          headers: {},
          unexpected: false,
        };
    }
  }
  const status = ERROR_STATUS[ErrorCode.INTERNAL];
  return {
    status,
    body: build(
      ErrorCode.INTERNAL,
      status,
      `Internal error. Quote tracingId ${tracingId} when reporting it.`,
      tracingId,
    ),
    headers: {},
    unexpected: true,
  };
}

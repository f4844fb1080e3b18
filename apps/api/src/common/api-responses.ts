import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiFailedDependencyResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ApiErrorResponse } from '#libs/http';

/** 404 of a merchant's or a session's resource. */
export const missing = {
  type: ApiErrorResponse,
  description: "NOT_FOUND (also another merchant's or, for a session, another user's resource)",
};

/** 403 of a call the upstream refused on its own (the consent, if any, is left as it is). */
export const upstreamRefused = {
  type: ApiErrorResponse,
  description:
    "FORBIDDEN: the upstream refused this call alone (a feature outside the consent's scope or the institution's offer); the consent stays usable",
};

/** 400 VALIDATION_FAILED, optionally with what else the route reports as one. */
export const ApiInvalid = (description = 'VALIDATION_FAILED') =>
  ApiBadRequestResponse({ type: ApiErrorResponse, description });

/** 404 of a merchant's or a session's resource. */
export const ApiMissing = () => ApiNotFoundResponse(missing);

/**
 * What a route that calls the upstream for a caller's resource can answer besides its own: 404, the
 * route's 409 when it has one, 403 when the upstream refuses that call, 424 INSTITUTION_ERROR and 503
 * UPSTREAM_UNAVAILABLE.
 */
export const ApiUpstreamErrors = (conflict?: string) =>
  applyDecorators(
    ApiMissing(),
    ...(conflict ? [ApiConflictResponse({ type: ApiErrorResponse, description: conflict })] : []),
    ApiForbiddenResponse(upstreamRefused),
    ApiResponse({
      status: 424,
      type: ApiErrorResponse,
      description: "INSTITUTION_ERROR, with the institution's message",
    }),
    ApiServiceUnavailableResponse({
      type: ApiErrorResponse,
      description: 'UPSTREAM_UNAVAILABLE, with error.upstream',
    }),
  );

/** 422 of a route that starts something at a bank the caller names, which may not offer it. */
export const ApiFeatureUnsupported = () =>
  ApiResponse({
    status: 422,
    type: ApiErrorResponse,
    description:
      'FEATURE_UNSUPPORTED: the institution does not offer this flow or feature (GET /v1/institutions lists each bank’s `flows` and `features`)',
  });

/** The answers every pass-through route (financial data, VRP) can give besides its own. */
export const upstreamFailures = () =>
  applyDecorators(
    ApiConflictResponse({
      type: ApiErrorResponse,
      description:
        'CONSENT_NOT_AUTHORISED (the stored consent is not AUTHORIZED; the upstream was not called) or CONSENT_EXPIRED (the bank expired or revoked it; the consent is marked so)',
    }),
    ApiForbiddenResponse(upstreamRefused),
    ApiFailedDependencyResponse({
      type: ApiErrorResponse,
      description: 'INSTITUTION_ERROR: the bank failed; its message, and error.upstream.tracingId',
    }),
    ApiServiceUnavailableResponse({
      type: ApiErrorResponse,
      description: 'UPSTREAM_UNAVAILABLE: the upstream failed or timed out after retries',
    }),
  );

/**
 * A route that may read an account at its bank without the user present: besides this api's own rate
 * limit, the bank's daily allowance of such reads (the account's `sync.dailyLimitUntil`).
 */
export const dailyLimitResponse = () =>
  ApiTooManyRequestsResponse({
    type: ApiErrorResponse,
    description:
      "RATE_LIMITED (this api's own limit), or DAILY_LIMIT_REACHED: the bank's daily allowance of reads of the account without the user present is spent; Retry-After (and error.retryAfterSeconds) says when it is back. A read with the user present (psu-ip-address, or a user session) still goes through",
  });

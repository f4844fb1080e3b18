import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiHeader } from '@nestjs/swagger';
import { ApiErrorResponse } from '#libs/http';
import {
  IdempotencyInterceptor,
  IDEMPOTENT_METADATA,
  type IdempotentOptions,
} from './idempotency.interceptor.js';

/** Makes a creating POST honour `Idempotency-Key` (docs/api-guide.md, "Authentication, rate limits, CORS, idempotency, docs"), and documents it. */
export const Idempotent = (options: IdempotentOptions = {}) =>
  applyDecorators(
    SetMetadata(IDEMPOTENT_METADATA, options),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Up to 255 visible ASCII characters. A replay with the same key and body within 24 h returns the first answer; another body gives 409 IDEMPOTENCY_MISMATCH; a replay while the first is running gives 409 CONFLICT.',
    }),
    ApiConflictResponse({
      type: ApiErrorResponse,
      description:
        'IDEMPOTENCY_MISMATCH (key reused with another body) or CONFLICT (first request still running)',
    }),
  );

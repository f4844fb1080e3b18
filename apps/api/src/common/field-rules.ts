import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, IsUrl, Matches, MaxLength } from 'class-validator';

// One rule per kind of field, so every body that has one validates it the same way.
export const IsRedirectUrl = () =>
  applyDecorators(
    IsString(),
    MaxLength(2048),
    IsUrl(
      { require_protocol: true, protocols: ['http', 'https'], require_tld: false },
      { message: 'redirectUrl must be an absolute http(s) URL' },
    ),
  );
export const IsInstitutionId = () =>
  applyDecorators(
    IsString(),
    Matches(/^[A-Za-z0-9._-]{1,255}$/, { message: 'institutionId must be an institution id' }),
  );
/** An optional date-time, strict ISO 8601, documented as one; `description` says what it bounds. */
export const OptionalDateTime = (description?: string) =>
  applyDecorators(
    ApiPropertyOptional({ format: 'date-time', ...(description ? { description } : {}) }),
    IsOptional(),
    IsISO8601({ strict: true }),
  );
/** What UK payment schemes carry in a reference: printable ASCII. */
export const IsPaymentReference = () =>
  Matches(/^[\x20-\x7E]+$/, { message: 'reference must be printable ASCII characters' });

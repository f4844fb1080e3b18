import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, IsUrl, Matches, MaxLength, ValidateBy } from 'class-validator';
import { canonicalInstant, INSTANT_FORMS, INSTANT_PATTERN, parseInstant } from '#libs/core';

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
/**
 * An optional point in time, by the one rule of `parseInstant`: what passes is exactly what the code can
 * parse, and it arrives canonical (`2026-11-23T00:00:00.000Z`), so nothing further in parses it again by
 * another rule. `description` says what it bounds.
 */
export const OptionalDateTime = (description?: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: String,
      description: `${description ? `${description}. ` : ''}${INSTANT_FORMS[0].toUpperCase()}${INSTANT_FORMS.slice(1)}.`,
      example: '2026-11-23T10:00:00Z',
      pattern: INSTANT_PATTERN,
    }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? (canonicalInstant(value) ?? value) : value,
    ),
    ValidateBy({
      name: 'isInstant',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseInstant(value) !== undefined,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be ${INSTANT_FORMS}`,
      },
    }),
  );
/** What UK payment schemes carry in a reference: printable ASCII. */
export const IsPaymentReference = () =>
  Matches(/^[\x20-\x7E]+$/, { message: 'reference must be printable ASCII characters' });

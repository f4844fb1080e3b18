import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, IsUrl, IsUUID, Matches, MaxLength, ValidateBy } from 'class-validator';
import {
  canonicalInstant,
  DAY_PATTERN,
  INSTANT_FORMS,
  INSTANT_PATTERN,
  isCalendarDay,
  parseInstant,
} from '#libs/time';

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
  applyDecorators(ApiPropertyOptional(instantProperty(description)), IsOptional(), ...instantRules());
/** A required point in time, by the same rule as {@link OptionalDateTime}. */
export const RequiredDateTime = (description?: string) =>
  applyDecorators(ApiProperty(instantProperty(description)), ...instantRules());

const instantProperty = (description?: string) => ({
  type: String,
  description: `${description ? `${description}. ` : ''}${INSTANT_FORMS[0].toUpperCase()}${INSTANT_FORMS.slice(1)}.`,
  example: '2026-11-23T10:00:00Z',
  pattern: INSTANT_PATTERN,
});
const instantRules = () => [
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
];
/**
 * The end of a range, `before`: a point in time as {@link OptionalDateTime}, and after the same query's
 * `from` when both are given. Every range is `from` inclusive and `before` exclusive, stored or live, so an
 * empty range is a mistake to name, not a page of nothing.
 */
export const OptionalRangeEnd = (description: string) =>
  applyDecorators(
    OptionalDateTime(`${description}; after \`from\``),
    ValidateBy({
      name: 'isAfterFrom',
      validator: {
        validate: (value: unknown, args) => {
          const from = (args?.object as { from?: unknown }).from;
          if (typeof value !== 'string' || typeof from !== 'string') return true;
          const [start, end] = [parseInstant(from), parseInstant(value)];
          return start === undefined || end === undefined || end > start;
        },
        defaultMessage: (args) => `${args?.property ?? 'before'} must be after from`,
      },
    }),
  );
/** An optional UTC calendar day, `YYYY-MM-DD`. */
export const OptionalDay = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: String,
      format: 'date',
      pattern: DAY_PATTERN,
      description,
      example: '2026-11-01',
    }),
    IsOptional(),
    ValidateBy({
      name: 'isCalendarDay',
      validator: {
        validate: isCalendarDay,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be a calendar day, YYYY-MM-DD`,
      },
    }),
  );
/** The operator's `merchantId` of an insight report: one merchant's `counted`, or every merchant's when absent. */
export const ReportMerchantFilter = (counted: string) =>
  applyDecorators(
    ApiPropertyOptional({
      format: 'uuid',
      description: `One merchant's ${counted}; absent: every merchant's.`,
    }),
    IsOptional(),
    IsUUID(),
  );
/** A payment reference's most characters: the upstream's limit for payments, VRP payments and funds checks. */
export const PAYMENT_REFERENCE_MAX_LENGTH = 18;
/** What UK payment schemes carry in a reference: printable ASCII, space (0x20) to `~` (0x7E). */
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
export const PAYMENT_REFERENCE_PATTERN = `^[\\x20-\\x7E]{1,${PAYMENT_REFERENCE_MAX_LENGTH}}$`;

/** Why `value` is not a payment reference, or undefined: the one rule of every payment route. */
export function paymentReferenceIssue(value: unknown): string | undefined {
  if (value === undefined) return 'is required';
  if (typeof value !== 'string') return 'must be a string';
  if (value === '') return 'must not be empty (leave it out instead, where it is optional)';
  const other = [...value].find((c) => !PRINTABLE_ASCII.test(c));
  if (other !== undefined) {
    return `must be printable ASCII, space to "~" (no accents, emoji, tabs or line breaks): ${JSON.stringify(other)} is not`;
  }
  if (value.length > PAYMENT_REFERENCE_MAX_LENGTH) {
    return `must be at most ${PAYMENT_REFERENCE_MAX_LENGTH} characters (it has ${value.length})`;
  }
  return undefined;
}

/**
 * A payment's `reference`, shown to the payer and payee: 1 to 18 printable ASCII characters (the upstream
 * takes at most 18; UK schemes carry ASCII). Documented with the rule; `required` for a single payment,
 * else it may be left out. A refusal names the reason.
 */
export const IsPaymentReference = (options: { required: boolean; example: string; description: string }) =>
  applyDecorators(
    (options.required ? ApiProperty : ApiPropertyOptional)({
      type: String,
      example: options.example,
      minLength: 1,
      maxLength: PAYMENT_REFERENCE_MAX_LENGTH,
      pattern: PAYMENT_REFERENCE_PATTERN,
      description: `${options.description}. 1 to ${PAYMENT_REFERENCE_MAX_LENGTH} printable ASCII characters (space to \`~\`: no accents, emoji, tabs or line breaks), as the upstream takes at most ${PAYMENT_REFERENCE_MAX_LENGTH}.`,
    }),
    ...(options.required ? [] : [IsOptional()]),
    ValidateBy({
      name: 'isPaymentReference',
      validator: {
        validate: (value: unknown) => paymentReferenceIssue(value) === undefined,
        defaultMessage: (args) => paymentReferenceIssue(args?.value) ?? '',
      },
    }),
  );

import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { Omittable } from '../omittable.js';

/** scheme://host[:port], nothing more: exactly what a browser sends in `Origin`. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** The same rules for a merchant's fields wherever they are given (on-boarding, a change). */
export const MerchantFields = {
  name: () => applyDecorators(IsString(), MinLength(1), MaxLength(255)),

  /**
   * Optional: an upstream application id, checked with the upstream by the service. `clearable`: `null`
   * is a value too (back to the root application), for a change of a merchant.
   */
  subApplicationId: (description: string, { clearable = false } = {}) =>
    applyDecorators(
      ApiPropertyOptional({
        type: String,
        description,
        maxLength: 255,
        ...(clearable ? { nullable: true } : {}),
      }),
      clearable
        ? ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null)
        : Omittable(),
      IsString(),
      Matches(/^[A-Za-z0-9._-]{1,255}$/, { message: 'subApplicationId must be an upstream application id' }),
    ),

  /** Optional: at most 20 browser origins. */
  frontendOrigins: (description?: string) =>
    applyDecorators(
      ApiPropertyOptional({
        type: [String],
        example: ['https://app.acme.example'],
        maxItems: 20,
        ...(description ? { description } : {}),
      }),
      Omittable(),
      IsArray(),
      ArrayMaxSize(20),
      IsString({ each: true }),
      Matches(ORIGIN, {
        each: true,
        // Name the entry that is not one (the field name itself comes first in the envelope's message);
        // this runs for any value the other rules also refuse, null included.
        message: ({ value }: { value: unknown }) => {
          const bad: unknown = Array.isArray(value)
            ? (value as unknown[]).find((entry) => typeof entry !== 'string' || !ORIGIN.test(entry))
            : value;
          return `must each be an origin like https://app.example; ${JSON.stringify(bad)} is not`;
        },
      }),
    ),
};

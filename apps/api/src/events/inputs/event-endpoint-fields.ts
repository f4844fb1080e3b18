import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { ENDPOINT_RATE_LIMIT, MERCHANT_EVENT_TYPE_NAMES, THROTTLE_WINDOW_MS } from '#libs/domain/events';

const { min, max } = ENDPOINT_RATE_LIMIT;
/** One message for every way a rate limit can be wrong: a string, a fraction, out of range. */
const RATE_LIMIT_ISSUE = `rateLimit must be a whole number of deliveries per second from ${min} to ${max}, or null for no limit`;

export const RATE_LIMIT_DESCRIPTION = `At most this many deliveries a second, a whole number from ${min} to ${max}; null: no limit. Deliveries past it wait, each for a turn of its own, rather than fail: a wait is not an attempt and does not use up the retry schedule. Kept across every worker as: at most this many deliveries in flight or answered within the last ${THROTTLE_WINDOW_MS} ms, so the endpoint receives at most this many in any second, however the network delays them; a slow endpoint's deliveries hold their places the longer.`;

/** The rules of an endpoint's fields, one place for creating and changing one. */
export const EventEndpointFields = {
  url: () =>
    applyDecorators(
      IsString(),
      MaxLength(2048),
      IsUrl(
        { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
        // class-validator's own words ("must be a URL address") are wrong for ftp://…, a URL refused by scheme.
        { message: 'url must be an absolute http or https URL' },
      ),
    ),
  types: () =>
    applyDecorators(
      IsArray(),
      ArrayMaxSize(MERCHANT_EVENT_TYPE_NAMES.length),
      IsIn(MERCHANT_EVENT_TYPE_NAMES, {
        each: true,
        message: `types must be event types: ${MERCHANT_EVENT_TYPE_NAMES.join(', ')}`,
      }),
    ),
  /** Optional and nullable everywhere: absent leaves it as it is (none, on creation), null is no limit. */
  rateLimit: (description = RATE_LIMIT_DESCRIPTION) =>
    applyDecorators(
      ApiPropertyOptional({
        type: 'integer',
        nullable: true,
        minimum: min,
        maximum: max,
        example: 20,
        description,
      }),
      ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null),
      IsInt({ message: RATE_LIMIT_ISSUE }),
      Min(min, { message: RATE_LIMIT_ISSUE }),
      Max(max, { message: RATE_LIMIT_ISSUE }),
    ),
};

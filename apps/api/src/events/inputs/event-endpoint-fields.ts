import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsIn, IsString, IsUrl, MaxLength } from 'class-validator';
import { MERCHANT_EVENT_TYPE_NAMES } from '#libs/domain/events';

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
};

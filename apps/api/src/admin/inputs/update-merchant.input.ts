import { ApiPropertyOptional } from '@nestjs/swagger';
import { MerchantFields } from '../../common/inputs/merchant-fields.js';
import { Omittable } from '../../common/omittable.js';

/** What may change of a merchant; an omitted field stays as it is. */
export class UpdateMerchantInput {
  @ApiPropertyOptional({ example: 'Acme Payments Ltd', maxLength: 255 })
  @Omittable()
  @MerchantFields.name()
  name?: string;

  @MerchantFields.frontendOrigins(
    'The whole new list (replaces the old one; `[]` allows no browser). CORS reads it on every request, so it applies at once on every api process.',
  )
  frontendOrigins?: string[];

  @MerchantFields.subApplicationId(
    'Another upstream sub-application, checked with the upstream, or `null` for none (the root application); only while the merchant has no consent or payment (409 after: they live under the one it has).',
    { clearable: true },
  )
  subApplicationId?: string | null;
}

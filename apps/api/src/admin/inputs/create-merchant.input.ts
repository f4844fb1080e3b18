import { ApiProperty } from '@nestjs/swagger';
import { MerchantFields } from '../../common/inputs/merchant-fields.js';

export class CreateMerchantInput {
  @ApiProperty({ example: 'Acme Payments', maxLength: 255 })
  @MerchantFields.name()
  name: string;

  @MerchantFields.subApplicationId(
    'Upstream sub-application to act as; checked with the upstream. Omitted: the root application.',
  )
  subApplicationId?: string;

  @MerchantFields.frontendOrigins()
  frontendOrigins?: string[];
}

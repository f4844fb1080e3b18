import { MerchantFields } from '../../common/inputs/merchant-fields.js';

/** What a merchant may change of itself: the browser origins its frontend runs at. */
export class UpdateOwnMerchantInput {
  @MerchantFields.frontendOrigins(
    'The whole new list (replaces the old one; `[]` allows no browser). It applies at once on every api process.',
  )
  frontendOrigins?: string[];
}

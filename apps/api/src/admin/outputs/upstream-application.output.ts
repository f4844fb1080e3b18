import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiOpenSchema } from '../../common/openapi-open-schemas.js';

/** Every field but `id` as the upstream gives it (GET /applications, straight through). */
const AS_GIVEN = 'As the upstream gives it; absent when it gives none';

@ApiOpenSchema()
export class UpstreamApplicationOutput {
  /** Open: the fields the upstream gives beyond those named (see ApiOpenSchema). */
  [field: string]: unknown;
  @ApiProperty() id: string;
  @ApiPropertyOptional({ description: AS_GIVEN }) name?: string;
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'number' }], description: AS_GIVEN })
  merchantCategoryCode?: number | string;
  @ApiPropertyOptional({ description: AS_GIVEN }) ppcUserGroup?: string;
  @ApiPropertyOptional({ type: [String], description: AS_GIVEN }) callbackUrls?: string[];
  @ApiPropertyOptional({ description: AS_GIVEN }) isContractPresent?: boolean;
  @ApiPropertyOptional({ description: AS_GIVEN }) rootApplicationId?: string;
}

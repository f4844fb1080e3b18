import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class UpstreamApplicationOutput {
  @ApiProperty() id: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'number' }] }) merchantCategoryCode?:
    number | string;
  @ApiPropertyOptional() ppcUserGroup?: string;
  @ApiPropertyOptional({ type: [String] }) callbackUrls?: string[];
  @ApiPropertyOptional() isContractPresent?: boolean;
  @ApiPropertyOptional() rootApplicationId?: string;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AuthKind } from '#libs/http';

export class MeOutput {
  @ApiProperty({ enum: [AuthKind.Merchant, AuthKind.UserSession] }) kind: string;
  @ApiProperty({ format: 'uuid' }) merchantId: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: "A session token's user; absent for an API key (kind `merchant`)",
  })
  userId?: string;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AuthKind } from '#libs/http';

export class ConsoleSessionOutput {
  @ApiProperty({
    enum: [AuthKind.Merchant, AuthKind.Operator],
    description: "Who the console session acts as: the API key's merchant, or the operator",
  })
  kind: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'The merchant; absent for kind `operator`' })
  merchantId?: string;
  @ApiProperty({
    format: 'date-time',
    description: 'When the session ends: 8 hours after sign-in, or sooner when the API key expires sooner',
  })
  expiresAt: string;
}

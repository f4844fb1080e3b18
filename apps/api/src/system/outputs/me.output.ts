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
  @ApiProperty({
    type: [String],
    description:
      'The browser origins the merchant allows (its `frontendOrigins`): the pages that may call the api with a session token',
  })
  frontendOrigins: string[];
  @ApiPropertyOptional({
    description:
      "Whether the request's `Origin` is one of them; absent when the request names none (a same-origin or server call). This route alone is readable from any origin, so a page can learn that it is not allowed.",
  })
  originAllowed?: boolean;
}

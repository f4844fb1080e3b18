import { ApiProperty } from '@nestjs/swagger';
import { IsRedirectUrl } from '../../common/field-rules.js';

export class ReauthoriseConsentInput {
  @ApiProperty({
    example: 'https://app.acme.example/banks/reconnected',
    maxLength: 2048,
    description:
      'Where the browser is sent after the bank (as for POST /v1/users/{userId}/consents); replaces the stored one.',
  })
  @IsRedirectUrl()
  redirectUrl: string;
}

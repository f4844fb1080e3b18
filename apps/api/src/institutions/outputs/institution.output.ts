import { ApiProperty } from '@nestjs/swagger';

export class InstitutionOutput {
  @ApiProperty({ example: 'sandbox-redirect' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) fullName: string | null;
  @ApiProperty({ type: [String], example: ['GB'] }) countries: string[];
  @ApiProperty({ type: [String], example: ['ACCOUNT_TRANSACTIONS'] }) features: string[];
  @ApiProperty({ type: String, nullable: true }) environmentType: string | null;
  @ApiProperty({ type: String, nullable: true }) credentialsType: string | null;
  @ApiProperty({
    type: [String],
    enum: ['REDIRECT', 'EMBEDDED'],
    example: ['REDIRECT'],
    description:
      'How a user can connect this bank for data: REDIRECT (POST /v1/users/{userId}/consents, the bank’s page) or EMBEDDED (POST …/consents/embedded, credentials and SCA on your page); from its features. Empty: payments only.',
  })
  flows: ('REDIRECT' | 'EMBEDDED')[];
}

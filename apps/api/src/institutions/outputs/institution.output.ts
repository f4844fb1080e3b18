import { ApiProperty } from '@nestjs/swagger';

const PSU_HEADERS = ['psu-id', 'psu-corporate-id', 'psu-ip-address'];

export class PsuHeadersOutput {
  @ApiProperty({
    type: [String],
    enum: PSU_HEADERS,
    example: ['psu-id', 'psu-ip-address'],
    description:
      'Send these request headers to connect this bank (POST …/consents, …/consents/embedded, re-authorise, pre-authorisation); without one, 400 naming it.',
  })
  connect: string[];

  @ApiProperty({
    type: [String],
    enum: PSU_HEADERS,
    example: [],
    description: 'The same, to start a payment at this bank.',
  })
  pay: string[];
}

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

  @ApiProperty({
    type: PsuHeadersOutput,
    description:
      "The PSU headers the bank requires (the user's login ids and IP address), from its constraints, refreshed with the list; empty lists while unknown. A user session's IP address is sent for it.",
  })
  psuHeaders: PsuHeadersOutput;

  @ApiProperty({
    description:
      "Its consents must name a transaction range (from its constraints). Then one is always sent: the consent's transactionsFrom and transactionsTo, else the last two years up to the consent's expiry.",
  })
  transactionRange: boolean;
}

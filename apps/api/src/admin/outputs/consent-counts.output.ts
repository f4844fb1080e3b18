import { ApiProperty } from '@nestjs/swagger';

export class MerchantConsentCountOutput {
  @ApiProperty({ format: 'uuid' }) merchantId!: string;
  @ApiProperty() merchantName!: string;
  @ApiProperty() status!: string;
  @ApiProperty() count!: number;
}

export class ConsentCountsOutput {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, example: { AUTHORIZED: 1200 } })
  byStatus!: Record<string, number>;
  @ApiProperty({ type: [MerchantConsentCountOutput] }) byMerchant!: MerchantConsentCountOutput[];
}

import { ApiProperty } from '@nestjs/swagger';
import { MoneyOutput } from '../../common/outputs/money.output.js';

export class ParkedPaymentOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) merchantId: string;
  @ApiProperty({ description: 'The merchant’s name as it is now' }) merchantName: string;
  @ApiProperty({ enum: ['SINGLE', 'VRP'] }) kind: 'SINGLE' | 'VRP';
  @ApiProperty({ description: 'Not final: SUBMITTING (a repeated send was refused) or the last status seen' })
  status: string;
  @ApiProperty({ type: MoneyOutput }) amount: MoneyOutput;
  @ApiProperty({
    description: 'Our idempotency id, sent with every submission: the bank and upstream know it',
  })
  paymentIdempotencyId: string;
  @ApiProperty({ type: String, nullable: true, description: "The upstream's payment id, once it answered" })
  upstreamPaymentId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the status checks stopped' })
  reason: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The payment’s reference, as the merchant gave it',
  })
  reference: string | null;
  @ApiProperty({ description: 'The customer’s reference: the merchant’s own id for them' })
  userReference: string;
}

export class SettledPaymentOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) merchantId: string;
  @ApiProperty({ enum: ['COMPLETED', 'FAILED'] }) status: 'COMPLETED' | 'FAILED';
}

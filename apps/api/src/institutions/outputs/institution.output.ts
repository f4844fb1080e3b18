import { ApiProperty } from '@nestjs/swagger';

export class InstitutionOutput {
  @ApiProperty({ example: 'sandbox-redirect' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) fullName: string | null;
  @ApiProperty({ type: [String], example: ['GB'] }) countries: string[];
  @ApiProperty({ type: [String], example: ['ACCOUNT_TRANSACTIONS'] }) features: string[];
  @ApiProperty({ type: String, nullable: true }) environmentType: string | null;
  @ApiProperty({ type: String, nullable: true }) credentialsType: string | null;
}

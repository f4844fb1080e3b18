import { ApiProperty } from '@nestjs/swagger';

export class ApiKeyOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Public head of the key, safe to show' }) prefix: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt: string | null;
}

export class CreatedApiKeyOutput extends ApiKeyOutput {
  @ApiProperty({
    required: false,
    description:
      'The API key itself. Shown only in the first answer; store it now. Absent from an idempotent replay.',
  })
  key?: string;
}

export class MerchantOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) subApplicationId: string | null;
  @ApiProperty({ type: String, nullable: true }) subApplicationName: string | null;
  @ApiProperty({ type: [String] }) frontendOrigins: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) disabledAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: [ApiKeyOutput], description: 'Every key, never the key itself' })
  apiKeys: ApiKeyOutput[];
}

export class CreatedMerchantOutput {
  @ApiProperty({ type: MerchantOutput }) merchant: MerchantOutput;
  @ApiProperty({ type: CreatedApiKeyOutput }) apiKey: CreatedApiKeyOutput;
}

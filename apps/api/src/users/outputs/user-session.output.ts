import { ApiProperty } from '@nestjs/swagger';

export class UserSessionOutput {
  @ApiProperty({ description: 'Bearer token (`us_…`) for this user only; give it to their browser' })
  token: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}

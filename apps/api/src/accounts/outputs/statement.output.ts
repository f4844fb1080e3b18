import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class StatementOutput {
  @ApiProperty() id: string;
  @ApiPropertyOptional({ format: 'date-time' }) startDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time' }) endDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time' }) creationDateTime?: string;
}

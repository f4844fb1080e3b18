import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The bank's statement, straight through: besides `id`, what the bank gives. */
export class StatementOutput {
  @ApiProperty() id: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the bank gives none' })
  startDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the bank gives none' })
  endDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the bank gives none' })
  creationDateTime?: string;
}

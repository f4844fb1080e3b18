import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiOpenSchema } from '../../common/openapi-open-schemas.js';

/** The bank's statement, straight through: besides `id`, what the bank gives. */
@ApiOpenSchema()
export class StatementOutput {
  /** Open: the fields the upstream gives beyond those named (see ApiOpenSchema). */
  [field: string]: unknown;
  @ApiProperty() id: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the bank gives none' })
  startDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the bank gives none' })
  endDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the bank gives none' })
  creationDateTime?: string;
}

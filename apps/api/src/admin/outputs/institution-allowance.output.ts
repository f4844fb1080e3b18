import { ApiProperty } from '@nestjs/swagger';
import { UNATTENDED_READS_PER_DAY } from '#libs/domain/accounts';

export class InstitutionAllowanceOutput {
  @ApiProperty() institutionId: string;
  @ApiProperty({ description: 'Reads a day per account without the user present, in effect from now' })
  perDay: number;
  @ApiProperty({ description: `Set by the operator; false: PSD2's ${UNATTENDED_READS_PER_DAY}` })
  setByOperator: boolean;
}

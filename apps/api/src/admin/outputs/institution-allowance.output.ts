import { ApiProperty } from '@nestjs/swagger';

export class InstitutionAllowanceOutput {
  @ApiProperty() institutionId: string;
  @ApiProperty({ description: 'Reads a day per account without the user present, in effect from now' })
  perDay: number;
  @ApiProperty({ description: "Set by the operator; false: PSD2's four" }) setByOperator: boolean;
}

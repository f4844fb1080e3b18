import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsInt, Max, Min, ValidateIf } from 'class-validator';
import { UNATTENDED_READS_PER_DAY } from '#libs/domain/accounts';

/** A bank's daily allowance of reads of an account without the user present. */
export class SetUnattendedReadsInput {
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 1000,
    example: UNATTENDED_READS_PER_DAY,
    description: `Reads a day the bank allows per account without the user present, or \`null\` for PSD2's ${UNATTENDED_READS_PER_DAY}. Required: \`null\` is how the default comes back`,
  })
  @IsDefined({
    message: `perDay is required: reads a day (1 to 1000), or null for the default of ${UNATTENDED_READS_PER_DAY}`,
  })
  @ValidateIf((_object: object, value: unknown) => value !== null)
  @IsInt()
  @Min(1)
  @Max(1000)
  perDay: number | null;
}

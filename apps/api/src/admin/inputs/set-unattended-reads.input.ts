import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsInt, Max, Min, ValidateIf } from 'class-validator';

/** A bank's daily allowance of reads of an account without the user present. */
export class SetUnattendedReadsInput {
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 1000,
    example: 4,
    description:
      "Reads a day the bank allows per account without the user present, or `null` for PSD2's four. Required: `null` is how the default comes back",
  })
  @IsDefined({ message: 'perDay is required: reads a day (1 to 1000), or null for the default of 4' })
  @ValidateIf((_object: object, value: unknown) => value !== null)
  @IsInt()
  @Min(1)
  @Max(1000)
  perDay: number | null;
}

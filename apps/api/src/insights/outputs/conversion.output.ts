import { ApiProperty } from '@nestjs/swagger';

export class ConversionCountsOutput {
  @ApiProperty({ example: 'sandbox-redirect' }) institutionId!: string;
  @ApiProperty({ description: 'Data consents started (POST /v1/users/{userId}/consents).' })
  started!: number;
  @ApiProperty({ description: 'Of those, authorised at the bank at some point (whatever came after).' })
  authorised!: number;
  @ApiProperty({ description: 'Refused by the user or the bank before being authorised (REJECTED).' })
  rejected!: number;
  @ApiProperty({
    description:
      'The user never came back from the bank: EXPIRED with reason AUTHORISATION_ABANDONED, settled about an hour after the last step.',
  })
  abandoned!: number;
  @ApiProperty({ description: 'Ended before authorisation any other way (FAILED, a timeout, an error).' })
  failed!: number;
  @ApiProperty({ description: 'Still awaiting the user (at the bank, or an SCA step).' })
  pending!: number;
  @ApiProperty({ description: 'Authorised consents an account of which finished its first sync.' })
  firstSynced!: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Median seconds from start to authorisation; null when none was authorised.',
  })
  medianSecondsToAuthorised!: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Median seconds from start to the end of the first successful sync; null when none.',
  })
  medianSecondsToFirstSync!: number | null;
}

export class ConversionDayOutput extends ConversionCountsOutput {
  @ApiProperty({ format: 'date', description: 'The day (UTC) the consents were started: their cohort.' })
  day!: string;
}

export class ConversionOutput {
  @ApiProperty({ format: 'date', description: 'The first day counted (UTC), included.' }) from!: string;
  @ApiProperty({ format: 'date', description: 'The last day counted (UTC), included.' }) to!: string;
  @ApiProperty({
    type: [ConversionCountsOutput],
    description:
      'The whole range, a row an institution that had consents started in it, by institution id. Each consent counts once, under the one outcome it reached: started = authorised + rejected + abandoned + failed + pending.',
  })
  institutions!: ConversionCountsOutput[];
  @ApiProperty({
    type: [ConversionDayOutput],
    description:
      'The same a day: a row a day (the cohort of consents started that day) and institution, by day then institution.',
  })
  days!: ConversionDayOutput[];
}

import { ApiProperty } from '@nestjs/swagger';
import { CONNECT_STEPS } from '#libs/domain/consents';

export class ConnectFunnelErrorOutput {
  @ApiProperty({
    enum: CONNECT_STEPS,
    description: 'The furthest step the attempt had reached when it met the error.',
  })
  step!: string;
  @ApiProperty({ example: 'CONSENT_REJECTED', description: "The error's code." }) reason!: string;
  @ApiProperty({ description: 'Attempts whose last error this was.' }) attempts!: number;
}

export class ConnectFunnelCountsOutput {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'sandbox-redirect',
    description: 'The bank last chosen; null for attempts that never chose one.',
  })
  institutionId!: string | null;
  @ApiProperty({
    description: 'Attempts: the component opened with its list of banks, or a bank preselected.',
  })
  opened!: number;
  @ApiProperty({ description: 'Of those, used the search.' }) searched!: number;
  @ApiProperty({ description: 'Chose a bank.' }) chose!: number;
  @ApiProperty({
    description:
      "Left for the bank's website (redirect), or gave the bank their credentials in place (embedded).",
  })
  sentToBank!: number;
  @ApiProperty({ description: "Came back from the bank's website, or finished its last SCA step." })
  returned!: number;
  @ApiProperty({ description: 'Ended connected: the consent authorised.' }) connected!: number;
  @ApiProperty({ description: 'Ended declined: refused at the bank.' }) declined!: number;
  @ApiProperty({ description: 'Ended cancelled: backed out in the component.' }) cancelled!: number;
  @ApiProperty({ description: 'Ended failed: an error the user could not get past (see errors).' })
  failed!: number;
  @ApiProperty({
    description:
      'Ended abandoned: the page closed before an end, or no word for over an hour (gone at the bank, say).',
  })
  abandoned!: number;
  @ApiProperty({ description: 'No end yet, and heard from within the hour.' }) inProgress!: number;
  @ApiProperty({
    type: [ConnectFunnelErrorOutput],
    description:
      'The last error each attempt met (ended failed, or recovered from), by step and code, most first.',
  })
  errors!: ConnectFunnelErrorOutput[];
}

export class ConnectFunnelDayOutput extends ConnectFunnelCountsOutput {
  @ApiProperty({ format: 'date', description: 'The day (UTC) the attempts opened: their cohort.' })
  day!: string;
}

export class ConnectFunnelOutput {
  @ApiProperty({ format: 'date', description: 'The first day counted (UTC), included.' }) from!: string;
  @ApiProperty({ format: 'date', description: 'The last day counted (UTC), included.' }) to!: string;
  @ApiProperty({
    type: [ConnectFunnelCountsOutput],
    description:
      'The whole range, a row a bank (null first): each attempt counts once under its one end, so opened = connected + declined + cancelled + failed + abandoned + inProgress.',
  })
  institutions!: ConnectFunnelCountsOutput[];
  @ApiProperty({
    type: [ConnectFunnelDayOutput],
    description: 'The same a day: a row a day (the attempts opened that day) and bank, by day then bank.',
  })
  days!: ConnectFunnelDayOutput[];
}

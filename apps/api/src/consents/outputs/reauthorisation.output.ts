import { ApiProperty } from '@nestjs/swagger';

export class ReauthorisationOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'AWAITING_RE_AUTHORIZATION' }) status: string;
  @ApiProperty({ description: "The bank's page: send the user's browser here" }) authorisationUrl: string;
}

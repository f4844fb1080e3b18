import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** The signed link of a consent.reauthorisation_required that needs the user present. */
export class ReauthorisationLinkInput {
  @ApiProperty({ description: 'Our signed link, as reauthorisationUrl carries it' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  link!: string;
}

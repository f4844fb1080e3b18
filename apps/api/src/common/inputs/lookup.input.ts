import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { RememberedQuery } from '#libs/http';

const VISIBLE = 'id must be visible ASCII characters only (no spaces or control characters)';

/** The id to look up: 1 to 255 visible ASCII characters, what our ids and the upstream's tracing ids are. */
@RememberedQuery()
export class LookupInput {
  @ApiProperty({
    minLength: 1,
    maxLength: 255,
    pattern: '^[!-~]+$',
    description: 'A tracing id, or the id of a sync run, an event or a delivery',
  })
  @IsString({
    message: 'id must be given once: a tracing id, or the id of a sync run, an event or a delivery',
  })
  @MinLength(1, { message: 'id must not be empty' })
  @MaxLength(255, { message: 'id must be at most 255 characters' })
  @Matches(/^[\x21-\x7e]*$/, { message: VISIBLE })
  id!: string;
}

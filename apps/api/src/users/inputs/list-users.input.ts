import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsUserReference } from '../../common/inputs/user-reference.js';
import { ListQuery } from '../../common/paging.js';

export class ListUsersInput extends ListQuery() {
  @ApiPropertyOptional({
    description: 'Find the one user with this reference (404 if none); limit and cursor are then ignored',
  })
  @IsOptional()
  @IsUserReference()
  reference?: string;
}

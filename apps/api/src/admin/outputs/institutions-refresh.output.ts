import { ApiProperty } from '@nestjs/swagger';

export class InstitutionsRefreshOutput {
  @ApiProperty({ description: 'Institutions the upstream listed (inserted or updated)' }) count: number;
  @ApiProperty({ description: 'Cached institutions the upstream no longer lists, removed' }) deleted: number;
}

import { ApiProperty } from '@nestjs/swagger';

export class SyncRequestedOutput {
  @ApiProperty({ format: 'uuid', description: 'The queued or running sync of the account' }) syncId: string;
}

import { Controller, Delete, HttpCode } from '@nestjs/common';
import { SandboxAccess } from '../core/index.js';
import { UnattendedReadsService } from './unattended-reads.service.js';

/**
 * The bank's counts of reads without the user, started again for the day: what a test or the demo needs to
 * read past an allowance it spent, without resetting everything else or moving the clock.
 */
@SandboxAccess('admin')
@Controller('sandbox/admin/unattended-reads')
export class UnattendedReadsAdminController {
  constructor(private readonly unattended: UnattendedReadsService) {}

  @Delete()
  @HttpCode(200)
  clear() {
    return { data: { cleared: this.unattended.clear() } };
  }
}

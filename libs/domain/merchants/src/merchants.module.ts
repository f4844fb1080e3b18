import { Module } from '@nestjs/common';
import { ConsoleSessionRepository } from './console-session.repository.js';
import { MerchantRepository } from './merchant.repository.js';
import { MerchantService } from './merchant.service.js';
import { UpstreamApplicationsService } from './upstream-applications.service.js';

/** Relies on the global database and upstream-client modules of CoreModule. */
@Module({
  providers: [ConsoleSessionRepository, MerchantRepository, MerchantService, UpstreamApplicationsService],
  exports: [ConsoleSessionRepository, MerchantRepository, MerchantService, UpstreamApplicationsService],
})
export class MerchantsModule {}

import { Module } from '@nestjs/common';
import { AuditModule } from '#libs/domain/audit';
import { MerchantsModule } from '#libs/domain/merchants';
import { MerchantSelfController } from './merchant-self.controller.js';

@Module({ imports: [MerchantsModule, AuditModule], controllers: [MerchantSelfController] })
export class MerchantApiModule {}

import { Module } from '@nestjs/common';
import { MerchantEventRepository } from './merchant-event.repository.js';

@Module({ providers: [MerchantEventRepository], exports: [MerchantEventRepository] })
export class EventsModule {}

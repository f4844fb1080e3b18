import { Module } from '@nestjs/common';
import { ConsentsModule } from '#libs/domain/consents';
import { ConsentCallbacksController } from './consent-callbacks.controller.js';
import { ConsentsController } from './consents.controller.js';

/** Consent routes of the merchant API and the bank's callback (docs/api-guide.md, "Consents and accounts"). */
@Module({
  imports: [ConsentsModule],
  controllers: [ConsentsController, ConsentCallbacksController],
})
export class ConsentsApiModule {}

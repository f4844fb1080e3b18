import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { ConsentsModule } from '#libs/domain/consents';
import { AdminConsentsController } from '../admin/admin-consents.controller.js';
import { AccountsController } from '../accounts/accounts.controller.js';
import { ConsentCallbacksController } from './consent-callbacks.controller.js';
import { ConsentsController } from './consents.controller.js';

/** Consent and account routes of the merchant API (API.md "Consents", "Accounts and financial data"). */
@Module({
  imports: [ConsentsModule, AccountsModule],
  controllers: [ConsentsController, ConsentCallbacksController, AccountsController, AdminConsentsController],
})
export class ConsentsApiModule {}

import { Module } from '@nestjs/common';
import { ApplicationsController } from './applications/applications.controller.js';
import { AccountAuthController } from './authorisations/account-auth.controller.js';
import { AccountAuthService } from './authorisations/account-auth.service.js';
import { EmbeddedAuthController } from './authorisations/embedded-auth.controller.js';
import { ConsentFlowsService } from './consent-flows.service.js';
import { ConsentsController, OneTimeTokenController } from './consents.controller.js';
import { BankPageController } from './hosted/bank-page.controller.js';
import { InstitutionsController } from './institutions/institutions.controller.js';
import { UsersController } from './users/users.controller.js';

/** Users, applications, institutions and the consent flows, with the hosted bank page. */
@Module({
  controllers: [
    UsersController,
    ApplicationsController,
    InstitutionsController,
    AccountAuthController,
    EmbeddedAuthController,
    ConsentsController,
    OneTimeTokenController,
    BankPageController,
  ],
  providers: [ConsentFlowsService, AccountAuthService],
})
export class ConsentsModule {}

import { Module } from '@nestjs/common';
import { HostedVrpController } from './hosted-vrp.controller.js';
import { HostedVrpService } from './hosted-vrp.service.js';
import { PaymentConsentsService } from './payment-consents.service.js';
import { PaymentLifecycleService } from './payment-lifecycle.service.js';
import { PaymentsController } from './payments.controller.js';
import { PaymentsService } from './payments.service.js';
import { PaymentsStore } from './payments.store.js';
import { PaymentsAdminController } from './payments-admin.controller.js';
import { VrpController } from './vrp.controller.js';
import { VrpConsentsService } from './vrp-consents.service.js';
import { VrpLimitsService } from './vrp-limits.service.js';
import { VrpPaymentsService } from './vrp-payments.service.js';

/** Single payments, sweeping VRP and hosted commercial VRP of the sandbox (README: "Payments"). */
@Module({
  controllers: [PaymentsController, VrpController, HostedVrpController, PaymentsAdminController],
  providers: [
    PaymentsStore,
    PaymentLifecycleService,
    PaymentConsentsService,
    PaymentsService,
    VrpLimitsService,
    VrpConsentsService,
    VrpPaymentsService,
    HostedVrpService,
  ],
})
export class PaymentsModule {}

import { Module } from '@nestjs/common';

/** Consent and account routes of the merchant API (API.md "Consents", "Accounts and financial data"). */
@Module({})
export class ConsentsApiModule {}

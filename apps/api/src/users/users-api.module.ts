import { Module } from '@nestjs/common';

/** Users, sessions and institutions routes of the merchant API (API.md "Users", "Institutions"). */
@Module({})
export class UsersApiModule {}

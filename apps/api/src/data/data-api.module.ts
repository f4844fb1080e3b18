import { Module } from '@nestjs/common';

/** Financial data and VRP routes answered through to the upstream with a stored consent. */
@Module({})
export class DataApiModule {}

import { Global, Module } from '@nestjs/common';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { PrismaService } from './prisma.service.js';

@Global()
@Module({
  providers: [PrismaService, DatabaseHealthRepository],
  exports: [PrismaService, DatabaseHealthRepository],
})
export class DatabaseModule {}

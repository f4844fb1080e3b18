import { Global, Module } from '@nestjs/common';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { DatabasePool } from './database.pool.js';
import { PrismaService } from './prisma.service.js';

@Global()
@Module({
  providers: [DatabasePool, PrismaService, DatabaseHealthRepository],
  exports: [DatabasePool, PrismaService, DatabaseHealthRepository],
})
export class DatabaseModule {}

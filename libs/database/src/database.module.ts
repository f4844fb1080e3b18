import { Global, Module } from '@nestjs/common';
import { DatabasePool } from './database.pool.js';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { PrismaService } from './prisma.service.js';
import { ReadCache } from './read-cache.js';
import { ReplicaReads } from './replica-reads.js';

@Global()
@Module({
  providers: [DatabasePool, PrismaService, DatabaseHealthRepository, ReadCache, ReplicaReads],
  exports: [DatabasePool, PrismaService, DatabaseHealthRepository, ReadCache, ReplicaReads],
})
export class DatabaseModule {}

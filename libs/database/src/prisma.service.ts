import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { DatabasePool } from './database.pool.js';
import { PrismaClient } from './generated/client.js';

/**
 * The Prisma client, on node-postgres through the driver adapter (no native engine), over the process's
 * one pool. Only repositories inject it; services talk to repositories.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(database: DatabasePool) {
    super({ adapter: new PrismaPg(database.pool) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}

import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { PrismaClient } from './generated/client.js';

/**
 * The Prisma client, on node-postgres through the driver adapter (no native engine). Only repositories
 * inject it; services talk to repositories.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({
      adapter: new PrismaPg({
        connectionString: config.database.url,
        max: config.database.poolMax,
        // Without these a stalled database hangs requests (and health probes) forever.
        connectionTimeoutMillis: 5_000,
        statement_timeout: 30_000,
      }),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}

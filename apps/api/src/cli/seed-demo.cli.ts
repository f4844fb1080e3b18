import 'reflect-metadata';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { apiKeyPrefix, hashApiKey } from '#libs/crypto';
import { DatabasePool, PrismaService } from '#libs/database';
import { MerchantRepository } from '#libs/domain/merchants';

/**
 * Seeds the demo merchant whose API key is DEMO_MERCHANT_API_KEY (npm start prints it). Idempotent; does
 * nothing when the setting is empty, which is how production disables it.
 */
async function main() {
  const config = loadConfig();
  const key = config.demoMerchantApiKey;
  if (!key) return;
  const database = new DatabasePool(config);
  const prisma = new PrismaService(database);
  try {
    const { merchant, created } = await new MerchantRepository(prisma).ensureMerchantWithKey({
      name: 'Demo merchant',
      keyPrefix: apiKeyPrefix(key),
      keyHash: hashApiKey(key),
      keyName: 'demo (DEMO_MERCHANT_API_KEY)',
    });
    // The demo app's pages call the API from their own origin, and the bank sends the browser back there.
    if (config.demo.publicUrl) {
      await new MerchantRepository(prisma).allowFrontendOrigin(
        merchant.id,
        new URL(config.demo.publicUrl).origin,
      );
    }
    console.log(
      JSON.stringify({
        msg: created ? 'demo merchant created' : 'demo merchant present',
        merchantId: merchant.id,
      }),
    );
  } finally {
    await prisma.$disconnect();
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});

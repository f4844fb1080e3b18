import { defineConfig } from 'prisma/config';

// Prisma 7 reads the connection URL here rather than from schema.prisma. The application itself never
// reads it from this file: it goes through libs/config. Migrations are applied by libs/database's runner.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bff' },
});

/**
 * Prisma CLI configuration (Prisma 7). Only `prisma generate` runs on this project's machines;
 * migrations are applied by the service itself (src/db/migrate.ts), see prisma/README.md.
 */
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});

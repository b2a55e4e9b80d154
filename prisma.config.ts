import { defineConfig } from "prisma/config";
// Migrations only: Prisma 6.19's CLI runs its bundled WASM schema engine through a
// driver adapter (no native engine download, which fails offline). adapter-pg 6.19
// fails `migrate deploy` on the `name` column type; the 7.x adapter works, so the
// CLI alone uses it, applying each migration whole (packages/db/src/migrate-adapter.ts).
// The services use adapter-pg 6.19, matching @prisma/client.
import { migrationAdapter } from "./packages/db/src/migrate-adapter";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  async adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL is required to run Prisma migrations");
    // The two adapter majors have structurally different types; the CLI only needs the runtime shape.
    return migrationAdapter(connectionString) as never;
  },
});

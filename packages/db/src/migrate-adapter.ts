import { PrismaPg } from "@prisma/adapter-pg-migrate";

type MigrationConnection = Awaited<ReturnType<PrismaPg["connect"]>>;

/**
 * The driver adapter that `prisma migrate` runs our migrations through (prisma.config.ts),
 * with each migration applied whole. The 7.x adapter's own executeScript splits a migration
 * at every semicolon and runs the pieces one by one, outside any transaction: a migration
 * that failed half-way stayed half-applied, and a semicolon in a comment or a function body
 * broke it. Here the file goes to PostgreSQL as one simple-protocol query, as Prisma's native
 * engine sends it. PostgreSQL runs a query string of several statements as one implicit
 * transaction, so a migration is applied entirely or not at all; a file of one statement
 * (CREATE INDEX CONCURRENTLY) runs on its own, outside a transaction block, as it must.
 */
export function migrationAdapter(connectionString: string): PrismaPg {
  const factory = new PrismaPg({ connectionString });
  const connect = factory.connect.bind(factory);
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connect = async () => applyingScriptsWhole(await connect());
  // `migrate dev` replays every migration on a shadow database: the same way.
  factory.connectToShadowDb = async () => applyingScriptsWhole(await connectToShadowDb());
  return factory;
}

function applyingScriptsWhole(connection: MigrationConnection): MigrationConnection {
  // onError is the adapter's own translation of a pg error into the error Prisma reports.
  const translate = (error: unknown): never => (connection as unknown as Translating).onError(error);
  connection.executeScript = async (script: string) => {
    await connection.underlyingDriver().query(script).catch(translate);
  };
  return connection;
}

interface Translating {
  onError(error: unknown): never;
}

// Creates the database named in the URL when it does not exist (Prisma's
// `migrate deploy` does not create it).
import pg from "pg";

const url = new URL(process.argv[2]);
const name = decodeURIComponent(url.pathname.slice(1));
const admin = new URL(url);
admin.pathname = "/postgres";
const client = new pg.Client({ connectionString: admin.toString() });
await client.connect();
const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
if (rowCount === 0) {
  await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  console.log(`created database ${name}`);
}
await client.end();

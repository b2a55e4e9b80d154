import { ConfigError } from "@sms/config";
import { createDatabase } from "@sms/db";
import { runCli } from "./cli";
import { loadAdminConfig } from "./config";

async function main(): Promise<number> {
  let config;
  try {
    config = loadAdminConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const db = createDatabase(config.DATABASE_URL, { poolSize: 4, applicationName: "admin-cli" });
  try {
    return await runCli(process.argv.slice(2), {
      db,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      gatewayUrl: config.GATEWAY_URL,
      simulatorSmpp: { host: config.SIMULATOR_SMPP_HOST, port: config.SIMULATOR_SMPP_PORT },
    });
  } finally {
    await db.close();
  }
}

// exitCode, not exit(): let stdout drain when piped.
void main().then((code) => {
  process.exitCode = code;
});

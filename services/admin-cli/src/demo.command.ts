import type { Command } from "commander";
import { PERMISSIONS } from "@sms/auth";
import { newId } from "@sms/ids";
import { createAccount } from "./accounts.command";
import { issueApiKey } from "./keys.command";
import { printResult, toNumber, type CliIo } from "./output";

const DEMO_ACCOUNT = "demo";
const DEMO_CREDITS = 1000;
const DEMO_SENDER = "DEMO";
const DEMO_KEY_NAME = "demo-start";
/** Serialises concurrent `demo` runs (two starts at once would otherwise create two demo accounts). */
const DEMO_LOCK_KEY = 7_431_002;

export interface DemoSetup {
  accountId: string;
  balance: bigint;
  isNewAccount: boolean;
  keyId: string;
  key: string;
  revokedKeys: number;
}

/**
 * Makes the local demo ready, idempotently: the "demo" account (1000 credits on creation),
 * its sender id DEMO, and one fresh "demo-start" key; earlier demo-start keys are revoked.
 */
export async function prepareDemo(io: CliIo): Promise<DemoSetup> {
  return io.db.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${DEMO_LOCK_KEY}::bigint)`;
    let account = await tx.account.findFirst({
      where: { name: DEMO_ACCOUNT },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const isNewAccount = !account;
    if (!account) {
      const { id } = await createAccount(tx, { name: DEMO_ACCOUNT, credits: DEMO_CREDITS });
      account = await tx.account.findUniqueOrThrow({ where: { id } });
    }
    await tx.senderId.upsert({
      where: { accountId_value: { accountId: account.id, value: DEMO_SENDER } },
      create: { id: newId("snd"), accountId: account.id, value: DEMO_SENDER },
      update: {},
    });
    const { count: revokedKeys } = await tx.apiKey.updateMany({
      where: { accountId: account.id, name: DEMO_KEY_NAME, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const issued = await issueApiKey(tx, {
      accountId: account.id,
      name: DEMO_KEY_NAME,
      permissions: PERMISSIONS,
    });
    return {
      accountId: account.id,
      balance: account.balance,
      isNewAccount,
      keyId: issued.id,
      key: issued.key,
      revokedKeys,
    };
  });
}

/** The two curl lines the start command shows; the first works exactly as printed. */
export function buildCurlLines(gatewayUrl: string, key: string): { send: string; status: string } {
  const base = gatewayUrl.replace(/\/+$/, "");
  const auth = `-H "Authorization: Bearer ${key}"`;
  const body = JSON.stringify({
    to: "+14155550100",
    message: "Hello from the SMS platform",
    sender_id: DEMO_SENDER,
  });
  return {
    send: `curl -sS -X POST ${base}/v1/sms/send ${auth} -H "Content-Type: application/json" -d '${body}'`,
    status: `curl -sS ${base}/v1/sms/<message_id> ${auth}`,
  };
}

export function registerDemoCommand(program: Command, io: CliIo): void {
  program
    .command("demo")
    .description(
      `Prepare the local demo: account "${DEMO_ACCOUNT}", sender id ${DEMO_SENDER}, a fresh "${DEMO_KEY_NAME}" key`,
    )
    .action(async (_options: unknown, command: Command) => {
      const demo = await prepareDemo(io);
      const curl = buildCurlLines(io.gatewayUrl, demo.key);
      printResult(io, command, {
        json: {
          account_id: demo.accountId,
          balance: toNumber(demo.balance),
          created_account: demo.isNewAccount,
          sender_id: DEMO_SENDER,
          key_id: demo.keyId,
          key: demo.key,
          revoked_keys: demo.revokedKeys,
          curl_send: curl.send,
          curl_status: curl.status,
        },
        lines: [
          `Demo account ${demo.accountId} (${demo.isNewAccount ? "created" : "existing"}, ${demo.balance} credits, sender id ${DEMO_SENDER})`,
          `API key: ${demo.key}`,
          "Send a message:",
          curl.send,
          "Then fetch its status with the message_id from the reply:",
          curl.status,
        ],
      });
    });
}

import type { Command } from "commander";
import { generateSmppPassword, inviteDashboardUser, PERMISSIONS } from "@sms/auth";
import { newId, ulid } from "@sms/ids";
import { createAccount } from "./accounts.command";
import { issueApiKey } from "./keys.command";
import { printResult, toNumber, type CliIo } from "./output";
import type { Db } from "./records";
import { addRoute } from "./routes.command";
import { setSmppCredential } from "./smpp.command";

const DEMO_ACCOUNT = "demo";
const DEMO_CREDITS = 1000;
const DEMO_SENDER = "DEMO";
const DEMO_KEY_NAME = "demo-start";
/** The demo account's SMPP system_id; its password is new on every run, like the key. */
const DEMO_SMPP_SYSTEM_ID = "demo";
/** The demo account's inbound number: the README's inbound curl line writes to it. */
const DEMO_INBOUND_NUMBER = "+14155550123";
/** Who signs in to the demo account's dashboard. */
const DEMO_DASHBOARD_EMAIL = "demo@example.com";
/** Serialises concurrent `demo` runs (two starts at once would otherwise create two demo accounts). */
const DEMO_LOCK_KEY = 7_431_002;

const SIMULATOR_CARRIER = "simulator";
/** Every number: the demo sends anything to the simulator. */
const SIMULATOR_ROUTE_PREFIX = "+";
/**
 * What the demo carrier binds with. The carrier simulator accepts any system_id and password
 * unless CARRIER_SIM_ACCOUNTS says otherwise; 2 transmitters, 1 receiver, window 50 and
 * 5000 submits/s keep it far from being the bottleneck of a local run.
 */
const SIMULATOR_SETTINGS = {
  name: "Local carrier simulator",
  systemId: "platform",
  password: "platform",
  transmitterBinds: 2,
  receiverBinds: 1,
  windowSize: 50,
  submitsPerSecond: 5000,
};

/** What `demo` did to the simulator carrier: host and port follow the config, the rest is left as tuned. */
export type CarrierChange = "created" | "updated" | "unchanged";

export interface DemoSetup {
  accountId: string;
  balance: bigint;
  isNewAccount: boolean;
  keyId: string;
  key: string;
  revokedKeys: number;
  carrier: { id: string; host: string; port: number; enabled: boolean; change: CarrierChange };
  isNewRoute: boolean;
  /** A one-time link where the demo person chooses a password for the dashboard. */
  dashboardLink: string;
  /** SMPP credentials of the demo account (system_id "demo", a new password each run). */
  smpp: { systemId: string; password: string };
}

/**
 * Makes the "simulator" carrier point at `address`: created with the demo's settings when
 * missing, host and port updated when they changed; anything else an operator tuned stays.
 */
async function ensureSimulatorCarrier(
  tx: Db,
  address: { host: string; port: number },
): Promise<DemoSetup["carrier"]> {
  const existing = await tx.carrier.findUnique({ where: { id: SIMULATOR_CARRIER } });
  let change: CarrierChange = "unchanged";
  let enabled = existing?.enabled ?? true;
  if (!existing) {
    await tx.carrier.create({ data: { id: SIMULATOR_CARRIER, ...SIMULATOR_SETTINGS, ...address } });
    change = "created";
  } else if (
    existing.host !== address.host ||
    existing.port !== address.port ||
    existing.passwordSealed !== null
  ) {
    // A password sealed by the dispatchers opens only with the key of the .env it was sealed
    // under; a second clone on the same database has another key, and its dispatcher could not
    // bind. The simulator takes any password, so the demo one goes back in clear (and is sealed
    // again with this key).
    const reset =
      existing.passwordSealed !== null ? { password: SIMULATOR_SETTINGS.password, passwordSealed: null } : {};
    ({ enabled } = await tx.carrier.update({
      where: { id: SIMULATOR_CARRIER },
      data: { ...address, ...reset },
    }));
    change = "updated";
  }
  return { id: SIMULATOR_CARRIER, ...address, enabled, change };
}

/** Makes sure the "+" → simulator route exists; true when this call added it. */
async function ensureSimulatorRoute(tx: Db): Promise<boolean> {
  const route = { prefix: SIMULATOR_ROUTE_PREFIX, carrierId: SIMULATOR_CARRIER };
  const existing = await tx.route.findUnique({ where: { prefix_carrierId: route } });
  if (existing) return false;
  await addRoute(tx, { ...route, priority: 0 });
  return true;
}

/**
 * Makes the local demo ready, idempotently: the "demo" account (1000 credits on creation),
 * its sender id DEMO, one fresh "demo-start" key (earlier ones are revoked), SMPP system_id
 * "demo" with a fresh password (the earlier one stops working), the "simulator"
 * carrier at the configured SMPP address, and the route "+" → simulator.
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
    // Left with its owner if an operator gave it to another account.
    await tx.inboundNumber.upsert({
      where: { number: DEMO_INBOUND_NUMBER },
      create: { number: DEMO_INBOUND_NUMBER, accountId: account.id },
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
    const smpp = await setSmppCredential(tx, {
      accountId: account.id,
      systemId: DEMO_SMPP_SYSTEM_ID,
      password: generateSmppPassword(),
    });
    const carrier = await ensureSimulatorCarrier(tx, io.simulatorSmpp);
    const isNewRoute = await ensureSimulatorRoute(tx);
    // A fresh one-time link on every start: the demo person keeps their password, if set.
    const invite = await inviteDashboardUser(tx, {
      newUserId: `usr_${ulid()}`,
      accountId: account.id,
      email: DEMO_DASHBOARD_EMAIL,
    });
    return {
      dashboardLink: `${io.dashboardUrl.replace(/\/+$/, "")}/invite/${invite.token}`,
      accountId: account.id,
      balance: account.balance,
      isNewAccount,
      keyId: issued.id,
      key: issued.key,
      revokedKeys,
      carrier,
      isNewRoute,
      smpp: { systemId: smpp.credential.systemId, password: smpp.password! },
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
      `Prepare the local demo: account "${DEMO_ACCOUNT}", sender id ${DEMO_SENDER}, a fresh "${DEMO_KEY_NAME}" key ` +
        `and SMPP password (system_id ${DEMO_SMPP_SYSTEM_ID}), ` +
        `carrier "${SIMULATOR_CARRIER}" (the carrier simulator) and route "${SIMULATOR_ROUTE_PREFIX}" to it`,
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
          carrier_id: demo.carrier.id,
          carrier_host: demo.carrier.host,
          carrier_port: demo.carrier.port,
          carrier_enabled: demo.carrier.enabled,
          carrier_change: demo.carrier.change,
          route_prefix: SIMULATOR_ROUTE_PREFIX,
          created_route: demo.isNewRoute,
          curl_send: curl.send,
          curl_status: curl.status,
          dashboard_email: DEMO_DASHBOARD_EMAIL,
          dashboard_invite_link: demo.dashboardLink,
          smpp_address: io.smppServerAddress,
          smpp_system_id: demo.smpp.systemId,
          smpp_password: demo.smpp.password,
        },
        lines: [
          `Demo account ${demo.accountId} (${demo.isNewAccount ? "created" : "existing"}, ${demo.balance} credits, sender id ${DEMO_SENDER})`,
          `Carrier ${demo.carrier.id} at ${demo.carrier.host}:${demo.carrier.port} (${demo.carrier.change}), ` +
            `route ${SIMULATOR_ROUTE_PREFIX} → ${demo.carrier.id} (${demo.isNewRoute ? "created" : "existing"})`,
          ...(demo.carrier.enabled
            ? []
            : [
                `Carrier ${demo.carrier.id} is disabled: enable it with \`carrier enable ${demo.carrier.id}\`.`,
              ]),
          `API key: ${demo.key}`,
          "Send a message:",
          curl.send,
          "Then fetch its status with the message_id from the reply:",
          curl.status,
          `Dashboard: open this one-time link to set up the sign-in of ${DEMO_DASHBOARD_EMAIL}:`,
          demo.dashboardLink,
          `SMPP: bind to ${io.smppServerAddress} with system_id ${demo.smpp.systemId}, password ${demo.smpp.password} (sender id ${DEMO_SENDER})`,
        ],
      });
    });
}

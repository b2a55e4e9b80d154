// pnpm bench:fairness — one account's campaign must not hold up another account's OTPs.
// The platform as `npm start` runs it (the same service set as bench:e2e); two accounts with
// the default limits (100 messages/s each) and their own keys:
//  1. B alone: 50 POST /v1/otp/send at 5/s (open loop), each timed to `delivered`;
//  2. A sends BENCH_FAIRNESS_CAMPAIGN (10,000) through POST /v1/sms/bulk, 1,000 per request,
//     one after another; B's 50 OTPs at 5/s start as soon as A's first request is answered.
// "Delivered" is when the platform recorded it: the bench polls the messages' status in
// PostgreSQL every 50 ms (the history's own timestamps are the carrier's receipt done date,
// whole minutes). With BENCH_FAIRNESS_WEBHOOKS=1 (the default) both accounts' endpoints get
// every event, and B's message.delivered webhook arrival is printed too. Prints B's p50/p99/max
// alone and during the campaign (target: p99 ≤ 1 s during), how far A's campaign had come and
// A's drain rate (A's limit: 100/s). BENCH_FAIRNESS_NORMAL=1 adds account C: 50 single sends
// (priority normal) at 5/s beside B's OTPs during the campaign, timed the same way.
import pg from "pg";
import { createSecretBox } from "@sms/secret-box";
import { generateSecret } from "@sms/webhook-signing";
import { jsonClient, machineLoad } from "./load-generator";
import { startWebhookReceiver, type WebhookReceiver } from "./pipeline-support";
import {
  describe,
  POLL_MS,
  printWhereSlowestWaited,
  sleep,
  TIMEOUT_MS,
  watchDelivered,
  watchDeliveryRows,
  type TimedSend,
} from "./fairness-timing";
import { routeEverythingTo, startPlatform, startSimulator } from "./platform";
import {
  BACKGROUND_NICE,
  BENCH_SECRETS,
  createBenchAccount,
  deleteRedisPrefix,
  freshDatabase,
  stopService,
} from "./support";

const CAMPAIGN = Number(process.env.BENCH_FAIRNESS_CAMPAIGN ?? 10_000);
const BULK_SIZE = 1000;
const OTPS = 50;
const OTP_RATE = 5;
const WEBHOOKS = process.env.BENCH_FAIRNESS_WEBHOOKS !== "0";
/** Account C: single sends (priority normal) at B's pace during A's campaign, beside B's OTPs. */
const NORMAL_ACCOUNT = process.env.BENCH_FAIRNESS_NORMAL === "1";
/** Ports BASE+1 … BASE+12 (BENCH_PORT, default 4200). */
const BASE = Number(process.env.BENCH_PORT ?? 4200);

type Client = ReturnType<typeof jsonClient>;

/**
 * OTPS sends at OTP_RATE per second to numbers `range` + 4 digits, each at its due time whatever
 * the previous ones do. Each round has a range of its own: the OTP pumping guard pauses a range
 * once 50 OTPs to it in an hour went unverified (docs/otp.md), and the bench enters no codes.
 */
function sendOtps(client: Client, range: string, otps: TimedSend[], refused: string[]): Promise<void> {
  return sendAtRate(
    client,
    "/v1/otp/send",
    (i) => ({ phone: `${range}${String(i).padStart(4, "0")}`, template: "Your bench code is {code}" }),
    201,
    otps,
    refused,
  );
}

/** Account C's single sends (priority normal), at OTP_RATE like B's OTPs. */
function sendSingles(client: Client, range: string, sent: TimedSend[], refused: string[]): Promise<void> {
  return sendAtRate(
    client,
    "/v1/sms/send",
    (i) => ({
      to: `${range}${String(i).padStart(4, "0")}`,
      message: "Your order has shipped",
      sender_id: "SHOP",
    }),
    202,
    sent,
    refused,
  );
}

/** OTPS requests at OTP_RATE per second, each at its due time whatever the previous ones do. */
async function sendAtRate(
  client: Client,
  path: string,
  bodyOf: (i: number) => Record<string, unknown>,
  accepted: number,
  sent: TimedSend[],
  refused: string[],
): Promise<void> {
  const start = Date.now();
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < OTPS; i++) {
    const wait = start + (i * 1000) / OTP_RATE - Date.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(
      (async () => {
        const sentAt = Date.now();
        const response = await client.post(path, bodyOf(i));
        if (response.status === accepted)
          sent.push({ messageId: String(response.body.message_id), sentAt, answeredAt: Date.now() });
        else refused.push(`HTTP ${response.status} ${JSON.stringify(response.body.error ?? "")}`);
      })(),
    );
  }
  await Promise.all(inFlight);
}

/** A's campaign: CAMPAIGN messages in bulk requests of BULK_SIZE, one after another. */
async function sendCampaign(
  client: Client,
  afterFirst: () => void,
): Promise<{ accepted: number; errors: string[] }> {
  let accepted = 0;
  const errors: string[] = [];
  for (let b = 0; b * BULK_SIZE < CAMPAIGN; b++) {
    const count = Math.min(BULK_SIZE, CAMPAIGN - b * BULK_SIZE);
    const messages = Array.from({ length: count }, (_, i) => ({
      to: `+1415${String(5_000_000 + b * BULK_SIZE + i).padStart(7, "0")}`,
      message: "Campaign benchmark message",
    }));
    const response = await client.post("/v1/sms/bulk", { sender_id: "CAMPAIGN", messages });
    if (response.status === 202 || response.status === 200) accepted += Number(response.body.accepted ?? 0);
    else errors.push(`bulk ${b}: HTTP ${response.status} ${JSON.stringify(response.body.error ?? "")}`);
    if (b === 0) afterFirst();
  }
  return { accepted, errors };
}

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const databaseUrl = await freshDatabase(
    process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms",
    `sms_bench_fairness_${BASE}`,
  );
  const redisPrefix = `bench-fair-${Date.now()}`;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const a = await createBenchAccount(databaseUrl, "CAMPAIGN", { defaultLimits: true });
  const b = await createBenchAccount(databaseUrl, "BANK", { defaultLimits: true });
  const c = NORMAL_ACCOUNT
    ? await createBenchAccount(databaseUrl, "SHOP", { defaultLimits: true })
    : undefined;
  const { rows: limits } = await db.query<{ messages_per_second: number }>(
    "SELECT messages_per_second FROM accounts WHERE id = $1",
    [a.accountId],
  );
  const simulator = await startSimulator(BASE);
  await routeEverythingTo(db, simulator);
  const webhookAt = new Map<string, number>();
  let receiver: WebhookReceiver | undefined;
  if (WEBHOOKS) {
    receiver = await startWebhookReceiver(
      () => new Map(),
      (webhook) => {
        if (webhook.event === "message.delivered" && !webhookAt.has(webhook.messageId))
          webhookAt.set(webhook.messageId, webhook.at);
      },
    );
    const box = createSecretBox(BENCH_SECRETS.SECRET_ENCRYPTION_KEY);
    for (const { accountId } of [a, b, ...(c ? [c] : [])])
      await db.query(
        "INSERT INTO webhook_endpoints (account_id, url, secret_sealed, updated_at) VALUES ($1, $2, $3, now())",
        [accountId, `http://127.0.0.1:${receiver.port}/hooks`, box.seal(generateSecret(), accountId)],
      );
  }
  const platform = await startPlatform({ base: BASE, databaseUrl, redisUrl, redisPrefix });
  const headers = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
  const clientA = jsonClient(platform.gatewayUrl, headers(a.key), 1);
  const clientB = jsonClient(platform.gatewayUrl, headers(b.key), 10);
  const clientC = c && jsonClient(platform.gatewayUrl, headers(c.key), 10);
  try {
    console.log(
      `bench:fairness: account A ${CAMPAIGN} in bulk (${BULK_SIZE} per request, one after another; A's limit ${limits[0]!.messages_per_second} messages/s), ` +
        `account B ${OTPS} OTPs at ${OTP_RATE}/s; the platform as npm start runs it (background workers at nice ${BACKGROUND_NICE}); ` +
        `webhooks ${WEBHOOKS ? "to a local receiver, every event, both accounts" : "off (BENCH_FAIRNESS_WEBHOOKS=0)"}`,
    );
    console.log(
      `  "delivered" = the message's status seen 'delivered' in PostgreSQL (polled every ${POLL_MS} ms), from just before POST /v1/otp/send`,
    );

    // 1. B alone.
    const aloneLoad = machineLoad();
    const alone = { otps: [] as TimedSend[], refused: [] as string[] };
    const deliveryRowAt = new Map<string, number>();
    // The delivery rows are watched, and the slowest webhooks shown, only when there are webhooks.
    const rowWatch = WEBHOOKS ? deliveryRowAt : undefined;
    const webhookTimes = WEBHOOKS ? { row: deliveryRowAt, webhook: webhookAt } : undefined;
    const aloneDone = await watchDelivered(
      db,
      alone.otps,
      sendOtps(clientB, "+1415555", alone.otps, alone.refused),
      rowWatch,
    );

    // 2. A's campaign, B's OTPs from just after A's first request.
    const duringLoad = machineLoad();
    const campaignStarted = Date.now();
    let startB!: () => void;
    const firstAnswered = new Promise<void>((resolve) => (startB = resolve));
    const campaign = sendCampaign(clientA, startB);
    await firstAnswered;
    const bStarted = Date.now();
    const during = { otps: [] as TimedSend[], refused: [] as string[] };
    const singles = { sent: [] as TimedSend[], refused: [] as string[] };
    const [duringDone, singlesDone] = await Promise.all([
      watchDelivered(db, during.otps, sendOtps(clientB, "+1415444", during.otps, during.refused), rowWatch),
      clientC &&
        watchDelivered(
          db,
          singles.sent,
          sendSingles(clientC, "+1415333", singles.sent, singles.refused),
          rowWatch,
        ),
    ]);
    const observedAt = Date.now();
    const { rows } = await db.query<{ status: string; n: string }>(
      "SELECT status, count(*) AS n FROM messages WHERE account_id = $1 GROUP BY status ORDER BY status",
      [a.accountId],
    );
    const byStatus = Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
    const { rows: sentRows } = await db.query<{ n: string; first: Date | null; last: Date | null }>(
      "SELECT count(*) AS n, min(sent_at) AS first, max(sent_at) AS last FROM messages WHERE account_id = $1 AND sent_at IS NOT NULL",
      [a.accountId],
    );
    const sent = sentRows[0]!;
    const campaignResult = await campaign;
    // B's message.delivered webhooks trail the status change: wait for them (a while at most).
    const webhookDeadline = Date.now() + TIMEOUT_MS;
    const owed = [
      ...aloneDone.delivered.keys(),
      ...duringDone.delivered.keys(),
      ...(singlesDone?.delivered.keys() ?? []),
    ];
    while (WEBHOOKS && owed.some((id) => !webhookAt.has(id)) && Date.now() < webhookDeadline) {
      await watchDeliveryRows(db, owed, deliveryRowAt);
      await sleep(POLL_MS);
    }

    console.log(`\nB's OTPs, POST /v1/otp/send → delivered (${OTPS} each):`);
    console.log(describe("alone", alone.otps, (id) => aloneDone.delivered.get(id)) + `   (${aloneLoad})`);
    console.log(
      describe("during A's campaign", during.otps, (id) => duringDone.delivered.get(id)) +
        `   (target p99 ≤ 1000 ms; ${duringLoad})`,
    );
    if (WEBHOOKS) {
      console.log(describe("alone, to the message.delivered webhook", alone.otps, (id) => webhookAt.get(id)));
      console.log(
        describe("during, to the message.delivered webhook", during.otps, (id) => webhookAt.get(id)),
      );
    }
    await printWhereSlowestWaited(db, during.otps, duringDone.delivered, webhookTimes);
    if (singlesDone) {
      console.log(`\nC's single sends (priority normal) at ${OTP_RATE}/s during A's campaign (${OTPS}):`);
      console.log(
        describe("POST /v1/sms/send → delivered", singles.sent, (id) => singlesDone.delivered.get(id)),
      );
      if (WEBHOOKS)
        console.log(describe("→ the message.delivered webhook", singles.sent, (id) => webhookAt.get(id)));
      await printWhereSlowestWaited(db, singles.sent, singlesDone.delivered, webhookTimes);
      if (singles.refused.length || singlesDone.failed.size)
        console.log(
          `  C: ${singles.refused.length} sends refused ${singles.refused.slice(0, 3).join("; ")}; ${singlesDone.failed.size} failed`,
        );
    }
    const refused = [...alone.refused, ...during.refused];
    const failed = aloneDone.failed.size + duringDone.failed.size;
    if (refused.length || failed)
      console.log(`  B: ${refused.length} sends refused ${refused.slice(0, 3).join("; ")}; ${failed} failed`);
    const elapsed = (observedAt - campaignStarted) / 1000;
    const sentSpan = sent.first && sent.last ? (sent.last.getTime() - sent.first.getTime()) / 1000 : NaN;
    console.log(
      `\nA's campaign when B's last OTP was delivered, ${elapsed.toFixed(1)} s after A's first request (B started ${((bStarted - campaignStarted) / 1000).toFixed(2)} s after it):`,
    );
    console.log(`  A's messages by status: ${JSON.stringify(byStatus)}`);
    console.log(
      `  A submitted to the carrier: ${sent.n} → ${(Number(sent.n) / elapsed).toFixed(0)}/s since A's first request, ` +
        `${(Number(sent.n) / sentSpan).toFixed(0)}/s from its first to its last submit (A's limit ${limits[0]!.messages_per_second}/s)`,
    );
    console.log(
      `  A's bulk requests: ${campaignResult.accepted}/${CAMPAIGN} accepted${campaignResult.errors.length ? `; ${campaignResult.errors.join("; ")}` : ""}; ${machineLoad()} at the end`,
    );
  } finally {
    clientA.close();
    clientB.close();
    await platform.stop();
    await stopService(simulator.child);
    receiver?.close();
    await db.end();
    await deleteRedisPrefix(redisUrl, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

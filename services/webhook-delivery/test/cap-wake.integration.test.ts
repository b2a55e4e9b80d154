import { createRedis, type Redis } from "@sms/redis";
import { waitFor } from "@sms/testing";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

let w: WebhookWorld;
let receiver: Receiver;
let redis: Redis;

beforeAll(async () => {
  w = await startWebhookWorld();
  receiver = await startReceiver();
  redis = createRedis(w.world.redisUrl);
});
afterAll(async () => {
  redis.disconnect();
  await w.close();
  await receiver.close();
});

describe("a job waiting for its endpoint's slots", () => {
  it("is woken by the job that gives them back, not left to its own wait", async () => {
    let release: (() => void) | undefined;
    receiver.answer = (_hook, res) => {
      if (release === undefined) release = () => res.writeHead(204).end();
      else res.writeHead(204).end();
    };
    const { accountId } = await w.account(receiver.url);
    // One slot, and a fallback wait so long (30 s at first) that only a wake delivers in time.
    await w.start({ WEBHOOK_ENDPOINT_CONCURRENCY: "1", WEBHOOK_CAP_WAIT_MS: "600000" });
    // Two batch jobs: the first holds the slot (its request is held), the second finds the cap.
    await w.emitEvents(accountId, 1);
    await waitFor(() => receiver.received.length === 1 && release, { what: "the first request held" });
    await w.emitEvents(accountId, 1);
    await waitFor(
      async () => (await redis.zcard(`${w.world.redisPrefix}:webhook:{${accountId}}:waiting`)) === 1,
      { what: "the second job waiting for the slot" },
    );
    release!();
    const answeredAt = Date.now();
    // Woken, it comes in milliseconds; left to its wait it would come 15 to 45 s later.
    await waitFor(() => receiver.received.length === 2, {
      what: "the second job's request",
      timeoutMs: 10_000,
    });
    console.log(
      `second job's request ${receiver.received[1]!.receivedAt - answeredAt} ms after the slot was given back`,
    );
    expect(receiver.ids().size).toBe(2);
  }, 60_000);
});

import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness({ webhookReplayMaxPerRequest: 2 });
});
afterAll(() => cli?.close());

it("webhook replay queues at most WEBHOOK_REPLAY_MAX_PER_REQUEST per run, oldest first, and reports the rest", async () => {
  const account = await cli.createAccount();
  await cli.db.pool.query(
    `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status, attempts, created_at)
     SELECT 'evt_01ARZ3NDEKTSV4RRFFQ69G5FA' || s, $1, 'msg_01ARZ3NDEKTSV4RRFFQ69G5FA' || s, 'message.sent', '{}',
            'failed', 10, now() - ((10 - n) || ' minutes')::interval
     FROM unnest(ARRAY['V', 'W', 'X', 'Y', 'Z']) WITH ORDINALITY AS t(s, n)`,
    [account],
  );
  const replay = () =>
    cli.json<{ replayed: number; remaining: number }>(
      "webhook",
      "replay",
      "--account",
      account,
      "--from",
      "2020-01-01T00:00:00Z",
    );
  const pending = async () =>
    (
      await cli.db.pool.query(
        "SELECT event_id FROM webhook_deliveries WHERE account_id = $1 AND status = 'pending' ORDER BY event_id",
        [account],
      )
    ).rows.map((r) => (r.event_id as string).slice(-1));

  expect(await replay()).toEqual({ replayed: 2, remaining: 3 });
  expect(await pending()).toEqual(["V", "W"]);
  expect(await replay()).toEqual({ replayed: 2, remaining: 1 });
  const human = await cli.run("webhook", "replay", "--account", account, "--from", "2020-01-01T00:00:00Z");
  expect(human.stdout).toContain("1 failed deliveries queued again");
  expect(human.stdout).not.toContain("run it again");
  expect(await pending()).toEqual(["V", "W", "X", "Y", "Z"]);
});

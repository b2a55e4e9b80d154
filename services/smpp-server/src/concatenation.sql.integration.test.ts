import { insertAccount } from "@sms/message-state/test/fixtures";
import { createTestWorld, statsPool, type TestWorld } from "@sms/testing";
import { storePart, type IncomingPart } from "./concatenation.sql";

// Only the parts of concatenated messages are in the (account_id, concat_key) index
// (migration 20261122100100): a whole message's submit record adds no entry to it.
describe("concatenated parts (real PostgreSQL)", () => {
  let world: TestWorld;
  let stats: ReturnType<typeof statsPool>;
  let accountId: string;
  const index = "smpp_submits_account_id_concat_key_parts_idx";
  beforeAll(async () => {
    world = await createTestWorld();
    stats = statsPool(world.databaseUrl);
    accountId = await insertAccount(stats.pool);
  });
  afterAll(async () => {
    await stats?.pool.end();
    await world?.destroy();
  });

  const part = (key: string, seq: number, total: number): IncomingPart => ({
    id: `sub_${key}_${seq}`,
    accountId,
    concatKey: key,
    seq,
    total,
    dataCoding: 0,
    octets: Buffer.from(`part ${seq}`),
    registeredDelivery: 1,
    sourceAddr: "ACME",
    destinationAddr: "447700900123",
  });

  it("finds a group's parts through the partial index", async () => {
    const before = await stats.indexScans(index);
    expect(await storePart(stats.pool, part("g1", 1, 2))).toBeNull();
    const complete = await storePart(stats.pool, part("g1", 2, 2));
    expect(complete?.parts.map((p) => p.seq)).toEqual([1, 2]);
    expect(await stats.indexScans(index)).toBeGreaterThan(before);
  });
});

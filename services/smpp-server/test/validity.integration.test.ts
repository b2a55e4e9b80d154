import { encodeGsm7 } from "@sms/sms-encoding";
import { CommandStatus, type SmppClient } from "@sms/smpp";
import { startHarness, type Harness } from "./harness";

/** An SMPP customer's validity_period (docs/messages.md#validity), over a real bind to the smpp-server. */
let h: Harness;
let client: SmppClient;

beforeAll(async () => {
  h = await startHarness({ MESSAGE_VALIDITY_DEFAULT_SECONDS: "7200" });
  client = await h.bind(await h.addCustomer({ credits: 100 }), { bindType: "transmitter" });
});
afterAll(() => h?.close());

const submit = (fields: Record<string, unknown>) =>
  client.submit({
    source_addr: "ACME",
    destination_addr: "447911123456",
    dest_addr_ton: 1,
    data_coding: 0,
    short_message: Buffer.from(encodeGsm7("validity")),
    ...fields,
  } as never);

/** Seconds from the message's creation to the end of its validity. */
async function validSeconds(fields: Record<string, unknown>): Promise<number> {
  const response = await submit(fields);
  expect(response.command_status).toBe(CommandStatus.ESME_ROK);
  const message = await h.message(response.message_id!);
  return ((message!.expires_at as Date).getTime() - (message!.created_at as Date).getTime()) / 1000;
}

/** An absolute SMPP time `seconds` from now, in UTC ("00+"). */
function absolute(seconds: number): string {
  const at = new Date(Date.now() + seconds * 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(at.getUTCFullYear() % 100)}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}000+`;
}

it("honours a relative validity_period from the submit", async () => {
  expect(await validSeconds({ validity_period: "000000001500000R" })).toBeCloseTo(900, 0);
});

it("honours an absolute validity_period", async () => {
  const seconds = await validSeconds({ validity_period: absolute(1800) });
  expect(seconds).toBeGreaterThan(1797);
  expect(seconds).toBeLessThanOrEqual(1800);
});

it("takes the deployment's default when there is none, and caps a longer one at 72 h", async () => {
  expect(await validSeconds({})).toBe(7200);
  expect(await validSeconds({ validity_period: "000007000000000R" })).toBeCloseTo(72 * 3600, 0);
});

it("refuses one that is malformed, already over, or over before the message is due: ESME_RINVEXPIRY, nothing stored", async () => {
  const before = (await h.pool.query("SELECT count(*)::int AS n FROM messages")).rows[0].n;
  for (const validity of ["not a time", "000000000000000R", absolute(-60)])
    expect((await submit({ validity_period: validity })).command_status).toBe(CommandStatus.ESME_RINVEXPIRY);
  expect(
    (await submit({ schedule_delivery_time: "000000020000000R", validity_period: "000000010000000R" }))
      .command_status,
  ).toBe(CommandStatus.ESME_RINVEXPIRY);
  expect((await h.pool.query("SELECT count(*)::int AS n FROM messages")).rows[0].n).toBe(before);
});

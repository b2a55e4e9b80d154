import { createSecretBox, openCarrierPassword } from "@sms/secret-box";
import { waitFor } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "./harness";

// Carrier SMPP passwords are sealed at rest. The migration adds the column;
// the dispatcher, which holds the key, seals each password it finds in clear.
describe("carrier passwords sealed at rest", () => {
  let w: DispatchWorld;
  beforeAll(async () => {
    w = await startDispatchWorld({
      simulatorSettings: { accounts: { platform: "secret" } },
      env: { CARRIER_REFRESH_MS: "200" },
    });
  });
  afterAll(() => w.stop());

  const row = () => w.db.prisma.carrier.findUniqueOrThrow({ where: { id: "sim" } });
  const box = () => createSecretBox(w.world.env.SECRET_ENCRYPTION_KEY!);

  it("seals a password stored in clear, bound to its carrier, and binds with it", async () => {
    const sealed = await waitFor(async () => {
      const carrier = await row();
      return carrier.password === "" && carrier.passwordSealed !== null ? carrier : null;
    });
    expect(sealed.passwordSealed).not.toContain("secret");
    expect(openCarrierPassword(box(), sealed)).toBe("secret");
    // A rebind (one transmitter instead of two) takes the password from the sealed column.
    await w.db.prisma.carrier.update({ where: { id: "sim" }, data: { transmitterBinds: 1 } });
    await waitFor(
      () => w.simulator.stats().binds.filter((b) => b.state === "bound_tx").length === 1 || null,
      {
        what: "one transmitter bind",
      },
    );
    const message = await w.send("+14155557001", "after sealing");
    await w.waitForStatus(message.id, ["sent", "delivered"]);
  });

  it("a password written in clear later wins over the sealed one, and is sealed in turn", async () => {
    const before = (await row()).passwordSealed;
    await w.db.prisma.carrier.update({ where: { id: "sim" }, data: { password: "secret" } });
    const resealed = await waitFor(async () => {
      const carrier = await row();
      return carrier.password === "" && carrier.passwordSealed !== before ? carrier : null;
    });
    expect(openCarrierPassword(box(), resealed)).toBe("secret");
  });

  it("a password sealed under another key costs that carrier its binds, not the dispatcher its start or the others theirs", async () => {
    const other = createSecretBox(Buffer.alloc(32, 7).toString("base64"));
    await w.db.prisma.carrier.create({
      data: {
        id: "foreign",
        name: "sealed elsewhere",
        host: "127.0.0.1",
        port: 1,
        systemId: "x",
        password: "",
        passwordSealed: other.seal("pw", "carrier:foreign"),
      },
    });
    const windowBefore = (await row()).windowSize;
    try {
      // The refresh still takes the other carriers' changes (it used to fail whole).
      await w.db.prisma.carrier.update({ where: { id: "sim" }, data: { windowSize: 7 } });
      await waitFor(() => w.dispatcher.carriers.candidates("+447700900000")[0]?.windowSize === 7, {
        what: "the refresh to take the simulator's new window",
      });
      expect(w.dispatcher.carriers.status().foreign).toBeUndefined();
      await waitFor(() => (w.dispatcher.carriers.status().sim?.bound ?? 0) > 0, { what: "sim bound" });
    } finally {
      await w.db.prisma.carrier.delete({ where: { id: "foreign" } });
      await w.db.prisma.carrier.update({ where: { id: "sim" }, data: { windowSize: windowBefore } });
    }
  });
});

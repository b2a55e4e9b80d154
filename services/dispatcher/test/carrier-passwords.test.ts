import { createSecretBox, openCarrierPassword } from "@sms/secret-box";
import { waitFor } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "./harness";

// Issue 19 item 15: carrier SMPP passwords are sealed at rest. The migration adds the column;
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
});

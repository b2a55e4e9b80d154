import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LookupAddress } from "node:dns";
import { BlockedAddressError, createGuardedLookup } from "./index";

function lookupAll(lookup: ReturnType<typeof createGuardedLookup>, host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses as LookupAddress[]),
    );
  });
}

function lookupOne(lookup: ReturnType<typeof createGuardedLookup>, host: string): Promise<[string, number?]> {
  return new Promise((resolve, reject) => {
    lookup(host, {}, (err, address, family) => (err ? reject(err) : resolve([address as string, family])));
  });
}

describe("createGuardedLookup", () => {
  it("refuses localhost (127.0.0.1 / ::1 via /etc/hosts)", async () => {
    const lookup = createGuardedLookup();
    await expect(lookupAll(lookup, "localhost")).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(lookupOne(lookup, "localhost")).rejects.toMatchObject({
      name: "BlockedAddressError",
      code: "ERR_SSRF_BLOCKED_ADDRESS",
      hostname: "localhost",
      reason: expect.stringMatching(/loopback/) as unknown,
    });
  });

  it("keeps the resolved address and the reason off the message (customers read it)", async () => {
    const refusal = await lookupOne(createGuardedLookup(), "localhost").catch((error: unknown) => error);
    expect(refusal).toMatchObject({ address: expect.stringMatching(/^127\.|^::1$/) as unknown });
    expect((refusal as Error).message).toBe(
      "Refusing to connect to localhost: it resolves to a blocked address",
    );
  });

  it("refuses literal blocked addresses passed as the host name", async () => {
    const lookup = createGuardedLookup({ allowLoopback: true });
    await expect(lookupOne(lookup, "169.254.169.254")).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(lookupOne(lookup, "10.0.0.1")).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(lookupOne(lookup, "::ffff:127.0.0.1")).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it("resolves localhost with allowLoopback, in both the single and the all form", async () => {
    const lookup = createGuardedLookup({ allowLoopback: true });
    const all = await lookupAll(lookup, "localhost");
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((a) => a.address === "::1" || a.address.startsWith("127."))).toBe(true);
    const [address, family] = await lookupOne(lookup, "localhost");
    expect(address === "::1" || address.startsWith("127.")).toBe(true);
    expect([4, 6]).toContain(family);
  });

  it("lets a public literal through without DNS", async () => {
    await expect(lookupOne(createGuardedLookup(), "8.8.8.8")).resolves.toEqual(["8.8.8.8", 4]);
  });

  it("passes resolver errors through", async () => {
    await expect(lookupOne(createGuardedLookup(), "does-not-exist.invalid")).rejects.toMatchObject({
      code: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/) as unknown,
    });
  });

  describe("with http.get to a server on 127.0.0.1", () => {
    let server: http.Server;
    let port: number;
    beforeAll(async () => {
      server = http.createServer((_req, res) => res.end("ok"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    function get(allowLoopback: boolean): Promise<string> {
      return new Promise((resolve, reject) => {
        const req = http.get(
          { host: "localhost", port, path: "/", family: 4, lookup: createGuardedLookup({ allowLoopback }) },
          (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (body += chunk));
            res.on("end", () => resolve(body));
          },
        );
        req.on("error", reject);
      });
    }

    it("fails with BlockedAddressError", async () => {
      const error: unknown = await get(false).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BlockedAddressError);
      expect((error as BlockedAddressError).address).toBe("127.0.0.1");
    });

    it("refuses on every attempt, not only the first", async () => {
      await expect(get(false)).rejects.toBeInstanceOf(BlockedAddressError);
      await expect(get(false)).rejects.toBeInstanceOf(BlockedAddressError);
    });

    it("succeeds with allowLoopback", async () => {
      await expect(get(true)).resolves.toBe("ok");
    });
  });
});

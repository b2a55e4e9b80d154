import { signIn } from "../src/security/sign-in";
import { Client, csrfOf, startTestDashboard, type TestAccount, type TestDashboard } from "./harness";

// One load balancer in front (TRUST_PROXY_HOPS=1): the client address is the last
// X-Forwarded-For entry, so each test client can come from an address of its own.
let t: TestDashboard;
let acme: TestAccount;
beforeAll(async () => {
  t = await startTestDashboard({
    TRUST_PROXY_HOPS: "1",
    DASHBOARD_IP_SIGN_IN_FAILURES: "4",
    DASHBOARD_LOCKOUT_ATTEMPTS: "3",
    DASHBOARD_LOCKOUT_WINDOW_MINUTES: "15",
  });
  acme = await t.createAccount();
});
afterAll(async () => {
  await t?.stop();
});

/** Signs in as a browser behind the load balancer at client address `ip`. */
async function signInFrom(ip: string, account: { email: string; password: string }) {
  const client = new Client(t.url);
  const page = await client.request("GET", "/sign-in", undefined, { "x-forwarded-for": ip });
  const form = { _csrf: csrfOf(page.body), ...account };
  return client.request("POST", "/sign-in", form, { "x-forwarded-for": ip });
}

describe("sign-in lockout per client address", () => {
  it("refuses an address after 4 failures across different e-mail addresses, even a right password, and only that address", async () => {
    const sprayer = "203.0.113.7";
    for (let i = 0; i < 4; i++)
      expect((await signInFrom(sprayer, { email: `nobody${i}@example.com`, password: "guess" })).status).toBe(
        401,
      );
    const refused = await signInFrom(sprayer, acme);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(refused.body).toContain("Too many failed sign-ins from your network");
    // Another client address signs in to the same account.
    expect((await signInFrom("198.51.100.20", acme)).status).toBe(303);
    // Once the failures are older than the window, the address may try again.
    await t.db.pool.query(
      "UPDATE dashboard_login_attempts SET at = at - interval '16 minutes' WHERE ip = $1",
      [sprayer],
    );
    expect((await signInFrom(sprayer, acme)).status).toBe(303);
  });

  it("does not reset the address's count on a success: one's own account buys no more guesses", async () => {
    const office = "203.0.113.50";
    for (let i = 0; i < 3; i++)
      expect((await signInFrom(office, { email: `other${i}@example.com`, password: "guess" })).status).toBe(
        401,
      );
    expect((await signInFrom(office, acme)).status).toBe(303);
    expect((await signInFrom(office, { email: "other9@example.com", password: "guess" })).status).toBe(401);
    expect((await signInFrom(office, acme)).status).toBe(429);
  });

  it("records the client address, not the load balancer's", async () => {
    await signInFrom("192.0.2.99", { email: "recorded@example.com", password: "guess" });
    const { rows } = await t.db.pool.query<{ ip: string }>(
      "SELECT ip FROM dashboard_login_attempts WHERE email = 'recorded@example.com'",
    );
    expect(rows).toEqual([{ ip: "192.0.2.99" }]);
  });

  it("counts an IPv6 client by its /64: a new address of the same /64 is no fresh bucket", async () => {
    for (let i = 1; i <= 4; i++)
      expect(
        (await signInFrom(`2001:db8:7:7::${i}`, { email: `v6-${i}@example.com`, password: "guess" })).status,
      ).toBe(401);
    expect((await signInFrom("2001:db8:7:7:ffff::9", acme)).status).toBe(429);
    expect((await signInFrom("2001:db8:7:8::1", acme)).status).toBe(303);
  });

  it("holds no database connection while scrypt runs", async () => {
    const pool = t.db.pool;
    let checkedOut = 0;
    const events: string[] = [];
    const acquired = () => {
      checkedOut++;
      events.push("acquire");
    };
    const released = () => {
      checkedOut--;
      if (checkedOut === 0) events.push("all-released");
    };
    pool.on("acquire", acquired);
    pool.on("release", released);
    try {
      const result = await signIn(
        t.db.prisma,
        { email: acme.email, password: acme.password, ip: "192.0.2.200" },
        { attempts: 5, windowMs: 60_000, ipAttempts: 30 },
      );
      expect(result.outcome).toBe("signed-in");
    } finally {
      pool.off("acquire", acquired);
      pool.off("release", released);
    }
    // The count (one transaction), every connection back, then the success written: the hash
    // ran in between with nothing checked out. On one transaction for all, there is no gap.
    const firstGap = events.indexOf("all-released");
    expect(firstGap).toBeGreaterThan(0);
    expect(events.indexOf("acquire", firstGap)).toBeGreaterThan(firstGap);
  });
});

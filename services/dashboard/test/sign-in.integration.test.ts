import { hashSecretToken, inviteDashboardUser } from "@sms/auth";
import { ulid } from "@sms/ids";
import { purgeExpired } from "../src/security/housekeeping";
import { Client, csrfOf, startTestDashboard, type TestAccount, type TestDashboard } from "./harness";

let t: TestDashboard;
let acme: TestAccount;

beforeAll(async () => {
  t = await startTestDashboard({ DASHBOARD_LOCKOUT_ATTEMPTS: "3", DASHBOARD_LOCKOUT_WINDOW_MINUTES: "15" });
  acme = await t.createAccount();
});
afterAll(async () => {
  await t?.stop();
});

describe("health", () => {
  it("answers /healthz; /readyz (PostgreSQL and Redis checked) and /metrics on the internal port only", async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    for (const internal of ["/readyz", "/metrics"]) {
      const answer = await fetch(`${t.url}${internal}`, { redirect: "manual" });
      expect({ internal, status: answer.status }).not.toEqual({ internal, status: 200 });
    }
    const ready = await fetch(`${t.healthUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { postgres: "ok", redis: "ok" } });
  });

  it("serves Prometheus metrics: page latency by route pattern, never the raw URL", async () => {
    await new Client(t.url).get("/sign-in?next=%2Fotps");
    const text = await (await fetch(`${t.healthUrl}/metrics`)).text();
    expect(text).toMatch(/sms_http_request_duration_seconds_count\{[^}]*route="\/sign-in"[^}]*\} [1-9]/);
    expect(text).not.toContain("next=");
  });
});

describe("sign-in", () => {
  it("signs in with the right password into a session cookie that is HttpOnly and SameSite=Lax", async () => {
    const client = new Client(t.url);
    expect((await client.get("/")).location).toBe("/sign-in?next=%2F");
    const reply = await client.signIn(acme);
    expect(reply.status).toBe(303);
    expect(reply.location).toBe("/");
    const cookie = reply.headers.getSetCookie().find((c) => c.startsWith("sms_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const overview = await client.get("/");
    expect(overview.status).toBe(200);
    expect(overview.body).toContain(acme.email);
    expect(overview.headers.get("cache-control")).toBe("no-store");
    expect(overview.headers.get("content-security-policy")).toContain("default-src 'none'");
    // Only the token's hash is stored.
    const token = client.cookies.get("sms_session")!;
    const { rows } = await t.db.pool.query("SELECT * FROM dashboard_sessions WHERE user_id = $1", [
      acme.userId,
    ]);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("goes back to the page asked for, but never to another site", async () => {
    const client = new Client(t.url);
    const page = await client.get("/sign-in?next=%2Fotps");
    const reply = await client.request("POST", "/sign-in", {
      _csrf: csrfOf(page.body),
      email: acme.email,
      password: acme.password,
      next: "/otps",
    });
    expect(reply.location).toBe("/otps");
    const evil = new Client(t.url);
    const evilPage = await evil.get("/sign-in");
    for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example"]) {
      const r = await evil.request("POST", "/sign-in", {
        _csrf: csrfOf(evilPage.body),
        email: acme.email,
        password: acme.password,
        next,
      });
      expect(r.location).toBe("/");
    }
  });

  it("answers an unknown address exactly like a wrong password", async () => {
    const wrong = await new Client(t.url).signIn({ email: acme.email, password: "not the password" });
    const unknown = await new Client(t.url).signIn({
      email: "nobody@example.com",
      password: "not the password",
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const error = (body: string) => /class="field-error"[^>]*>(.*?)<\/p>/s.exec(body)?.[1];
    expect(error(unknown.body)).toBe(error(wrong.body));
    expect(error(wrong.body)).toContain("do not match");
  });

  it("locks an address after 3 wrong passwords, even for the right one, and only that address", async () => {
    const victim = await t.createAccount();
    for (let i = 0; i < 3; i++)
      expect((await new Client(t.url).signIn({ ...victim, password: `guess ${i}` })).status).toBe(401);
    const locked = await new Client(t.url).signIn(victim);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(locked.body).toContain("Too many wrong passwords");
    expect((await new Client(t.url).signIn(acme)).status).toBe(303);
    // Once the failures are older than the window, the right password works again.
    await t.db.pool.query(
      "UPDATE dashboard_login_attempts SET at = at - interval '16 minutes' WHERE email = $1",
      [victim.email],
    );
    expect((await new Client(t.url).signIn(victim)).status).toBe(303);
  });

  it("parallel guesses cannot get past the limit", async () => {
    const victim = await t.createAccount();
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => new Client(t.url).signIn({ ...victim, password: `guess ${i}` })),
    );
    expect(replies.filter((r) => r.status === 401)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(5);
  });
});

describe("CSRF", () => {
  it("refuses a signed-in POST without the session's token, with another session's, or from another origin", async () => {
    const client = new Client(t.url);
    await client.signIn(acme);
    const other = new Client(t.url);
    await other.signIn(acme);
    const othersToken = csrfOf((await other.get("/settings/api-keys")).body);
    const form = { name: "x", permissions: "sms:send" };
    expect((await client.request("POST", "/settings/api-keys", form)).status).toBe(403);
    expect((await client.request("POST", "/settings/api-keys", { ...form, _csrf: othersToken })).status).toBe(
      403,
    );
    const ownToken = csrfOf((await client.get("/settings/api-keys")).body);
    expect(
      (
        await client.request(
          "POST",
          "/settings/api-keys",
          { ...form, _csrf: ownToken },
          { origin: "https://evil.example" },
        )
      ).status,
    ).toBe(403);
    expect(await t.db.prisma.apiKey.count({ where: { accountId: acme.accountId } })).toBe(0);
    expect((await client.request("POST", "/settings/api-keys", { ...form, _csrf: ownToken })).status).toBe(
      201,
    );
  });

  it("refuses a sign-in form posted without the browser's own pre-session token", async () => {
    const client = new Client(t.url);
    await client.get("/sign-in");
    const reply = await client.request("POST", "/sign-in", {
      _csrf: "forged",
      email: acme.email,
      password: acme.password,
    });
    expect(reply.status).toBe(403);
    expect(client.cookies.has("sms_session")).toBe(false);
  });
});

describe("sessions", () => {
  it("sign-out deletes the session: the old cookie no longer opens a page", async () => {
    const client = new Client(t.url);
    await client.signIn(acme);
    const token = client.cookies.get("sms_session")!;
    expect((await client.post("/sign-out")).location).toBe("/sign-in");
    const replay = new Client(t.url);
    replay.cookies.set("sms_session", token);
    expect((await replay.get("/")).status).toBe(303);
  });

  it("ends a session past its expiry or idle too long", async () => {
    for (const column of ["expires_at", "last_seen_at"]) {
      const client = new Client(t.url);
      await client.signIn(acme);
      const shift = column === "expires_at" ? "now() - interval '1 second'" : "now() - interval '61 minutes'";
      await t.db.pool.query(`UPDATE dashboard_sessions SET ${column} = ${shift} WHERE user_id = $1`, [
        acme.userId,
      ]);
      expect((await client.get("/")).status).toBe(303);
    }
  });

  it("refuses a form body over the limit with 413", async () => {
    const client = new Client(t.url);
    await client.signIn(acme);
    const reply = await client.post("/settings/api-keys", {
      name: "x".repeat(20_000),
      permissions: "sms:send",
    });
    expect(reply.status).toBe(413);
  });
});

describe("invites", () => {
  it("lets the invited person choose a password once, then sign in with it", async () => {
    const other = await t.createAccount();
    const email = `new-${ulid().toLowerCase()}@example.com`;
    const { token } = await inviteDashboardUser(t.db.prisma, {
      newUserId: `usr_${ulid()}`,
      accountId: other.accountId,
      email,
    });
    const client = new Client(t.url);
    const page = await client.get(`/invite/${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(email);
    const short = await client.request("POST", `/invite/${token}`, {
      _csrf: csrfOf(page.body),
      password: "short",
    });
    expect(short.status).toBe(400);
    expect(short.body).toContain("at least 12 characters");
    const accepted = await client.request("POST", `/invite/${token}`, {
      _csrf: csrfOf(page.body),
      password: "a long enough passphrase",
    });
    expect(accepted.status).toBe(303);
    expect((await client.get("/")).body).toContain(email);
    expect((await new Client(t.url).get(`/invite/${token}`)).status).toBe(404);
    expect((await new Client(t.url).signIn({ email, password: "a long enough passphrase" })).status).toBe(
      303,
    );
  });
});

describe("secure cookies (the default outside local use)", () => {
  it("names cookies __Host- and marks them Secure, and sends HSTS", async () => {
    const secure = await startTestDashboard({ DASHBOARD_SECURE_COOKIES: "true" }, t.world);
    try {
      const client = new Client(secure.url);
      const page = await client.get("/sign-in");
      expect(page.headers.get("strict-transport-security")).toBe("max-age=31536000");
      expect(page.headers.getSetCookie()[0]).toMatch(
        /^__Host-sms_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
      );
      const reply = await client.request("POST", "/sign-in", {
        _csrf: csrfOf(page.body),
        email: acme.email,
        password: acme.password,
      });
      expect(reply.status).toBe(303);
      const session = reply.headers.getSetCookie().find((c) => c.startsWith("__Host-sms_session="));
      expect(session).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=43200$/);
    } finally {
      await secure.dashboard.stop();
      await secure.db.close();
    }
  });
});

describe("housekeeping", () => {
  it("purges expired sessions and sign-in attempts older than a day, and nothing else", async () => {
    const client = new Client(t.url);
    await client.signIn(acme);
    await new Client(t.url).signIn({ email: "sprayed@example.com", password: "x" });
    await t.db.pool.query(
      "UPDATE dashboard_login_attempts SET at = now() - interval '25 hours' WHERE email = 'sprayed@example.com'",
    );
    const expired = new Client(t.url);
    await expired.signIn(acme);
    await t.db.pool.query(
      "UPDATE dashboard_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1",
      [hashSecretToken(expired.cookies.get("sms_session")!)],
    );
    const purged = await purgeExpired(t.db.prisma);
    expect(purged.attempts).toBeGreaterThanOrEqual(1);
    expect(purged.sessions).toBeGreaterThanOrEqual(1);
    expect(await t.db.prisma.dashboardLoginAttempt.count({ where: { email: "sprayed@example.com" } })).toBe(
      0,
    );
    expect((await client.get("/")).status).toBe(200);
  });
});

import crypto from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { hashPassword } from "@sms/auth";
import { waitFor } from "@sms/testing";
import { startReceiver, type Receiver } from "@sms/webhook-delivery/test/receiver";
import { FIND_LOW_CONTRAST } from "./dashboard-contrast";
import { startTestDashboard, type TestAccount, type TestDashboard } from "@sms/dashboard/test/harness";
import { startPlatform, type Platform } from "./dashboard-platform";

// The customer's way through the dashboard in a real headless Chromium, against the real
// platform: sign in, set a webhook and receive its test event, create a key and send with it
// over the REST API, find the message and watch it delivered; then the refusals (lockout,
// CSRF) and the 360 px layout. Every page is saved as a screenshot.
jest.setTimeout(180_000);

const ARTIFACTS = path.resolve(__dirname, "../services/dashboard/test-artifacts");
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const PHONE = "+14155550123";

let platform: Platform;
let t: TestDashboard;
let acme: TestAccount;
let receiver: Receiver;
let browser: Browser;
let page: Page;
let apiKey: string;
let messageId: string;

async function shot(target: Page, name: string): Promise<void> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await target.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

async function signIn(target: Page, account: { email: string; password: string }): Promise<void> {
  await target.goto(`${t.url}/sign-in`);
  await target.getByLabel("E-mail address").fill(account.email);
  await target.getByLabel("Password").fill(account.password);
  await target.getByRole("button", { name: "Sign in" }).click();
}

beforeAll(async () => {
  // Fail with the fix rather than skip: a skipped browser test would prove nothing.
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  platform = await startPlatform();
  t = await startTestDashboard({}, platform.world);
  acme = await t.createAccount({ credits: 500 });
  await t.db.prisma.smppCredential.create({
    data: { systemId: "acme01", accountId: acme.accountId, passwordHash: await hashPassword("pw") },
  });
  // An inbound number and a long Arabic message to it: the inbound page has a row to lay out.
  await t.db.prisma.inboundNumber.create({ data: { number: "+14155550123", accountId: acme.accountId } });
  await t.db.prisma.inboundMessage.create({
    data: {
      id: "in_01JD6Z8Q4G2M0F3T6S8V9W0X22",
      accountId: acme.accountId,
      carrierId: "sim",
      from: "+447700900123",
      to: "+14155550123",
      text: "مرحبا، نعم سأحضر غدا في الساعة الثالثة. شكرا جزيلا على التذكير، وإلى اللقاء قريبا جدا!",
      encoding: "UCS-2",
      dataCoding: 8,
      segments: 2,
    },
  });
  receiver = await startReceiver();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.stop();
  await platform?.stop();
});

it("signs in", async () => {
  await page.goto(`${t.url}/`);
  expect(page.url()).toContain("/sign-in");
  await shot(page, "01-sign-in");
  await signIn(page, acme);
  await expect(page.getByRole("heading", { level: 1 })).toBeDefined();
  expect(await page.locator("h1").textContent()).toBe("Overview");
  expect(await page.locator(".who-email").textContent()).toBe(acme.email);
});

it("sets the webhook URL and the receiver gets a signed test event", async () => {
  await page.getByRole("link", { name: "Webhook" }).click();
  await page.getByLabel("URL").fill("ftp://example.com/hook");
  await page.getByRole("button", { name: "Save URL" }).click();
  // The error sits next to the field and names the problem.
  expect(await page.locator("#f-url-error").textContent()).toContain("cannot be used");
  expect(await page.locator("#f-url").getAttribute("aria-invalid")).toBe("true");
  await shot(page, "02-webhook-error");
  await page.getByLabel("URL").fill(receiver.url);
  await page.getByRole("button", { name: "Save URL" }).click();
  expect(await page.locator(".notice-success").first().textContent()).toContain("Webhook URL saved");
  expect(await page.locator("[role=status]", { hasText: "Test event delivered" }).count()).toBe(1);
  const secret = (await page.locator("#secret-value").textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  await shot(page, "03-webhook");
  const test = await waitFor(() => receiver.received.find((w) => w.body.event === "webhook.test"), {
    what: "the test event",
  });
  // Standard Webhooks: base64 HMAC-SHA256 of "id.timestamp.body" under the secret's bytes.
  const expected = crypto
    .createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
    .update(`${test.id}.${test.timestamp}.${test.raw}`)
    .digest("base64");
  expect(test.headers["webhook-signature"]!.split(" ")).toContain(`v1,${expected}`);
  expect(test.body.data).toMatchObject({ account_id: acme.accountId });
});

it("creates an API key, shown once, that works against the REST API", async () => {
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByRole("button", { name: "Create key" }).click();
  expect(await page.locator("#f-name-error").textContent()).toContain("Give the key a name");
  await page.getByLabel("Name").fill("e2e backend");
  await page.getByRole("button", { name: "Create key" }).click();
  apiKey = (await page.locator("#secret-value").textContent())!.trim();
  expect(apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
  await shot(page, "04-api-key-created");

  const sent = await platform.gateway.request("POST", "/v1/sms/send", {
    key: apiKey,
    body: { to: PHONE, message: "Your parcel is on its way", sender_id: "ACME" },
  });
  expect(sent.status).toBe(202);
  messageId = sent.body.message_id;
  const otp = await platform.gateway.request("POST", "/v1/otp/send", {
    key: apiKey,
    body: { phone: "+14155550124" },
  });
  expect(otp.status).toBe(201);

  // Shown once: a reload lists the key by its prefix only, now with its last use.
  await waitFor(
    async () =>
      (await t.db.prisma.apiKey.findFirst({
        where: { accountId: acme.accountId, lastUsedAt: { not: null } },
      })) ?? undefined,
    { what: "last_used_at" },
  );
  await page.goto(`${t.url}/settings/api-keys`);
  const body = (await page.content()) ?? "";
  expect(body).not.toContain(apiKey);
  expect(body).toContain(apiKey.slice(0, 12));
  expect(await page.locator("tr", { hasText: "e2e backend" }).locator("time").count()).toBe(2);
});

it("finds the sent message by number and sees it delivered, with its segments and webhook attempts", async () => {
  await page.getByRole("link", { name: "Messages" }).click();
  await page.getByLabel("Phone number").fill("+1 415 555 0123");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("link", { name: messageId }).click();
  await waitFor(
    async () => {
      await page.reload();
      return (await page.locator("dd .badge").first().textContent()) === "delivered" || undefined;
    },
    { what: "the message delivered", timeoutMs: 60_000 },
  );
  const timeline = await page.locator(".timeline .badge").allTextContents();
  expect(timeline).toEqual(["queued", "sent", "delivered"]);
  expect(await page.locator("table", { hasText: "sim" }).count()).toBeGreaterThan(0);
  // The delivered event reaches the receiver and its attempt shows on the message's page.
  await waitFor(
    async () => {
      await page.reload();
      return (
        (await page.locator("h3", { hasText: "message.delivered" }).locator(".badge-succeeded").count()) >
          0 || undefined
      );
    },
    { what: "the delivered webhook attempt", timeoutMs: 60_000 },
  );
  await shot(page, "05-message-delivered");
  await page.goto(`${t.url}/messages`);
  await shot(page, "06-messages");
});

it("shows the overview, OTPs, webhook attempts and SMPP pages", async () => {
  await page.goto(`${t.url}/`);
  expect(await page.locator(".stat").first().textContent()).toMatch(/\d+ credits/);
  expect(await page.locator("svg[role=img] rect").count()).toBeGreaterThan(0);
  await shot(page, "07-overview");
  await page.getByRole("link", { name: "OTPs" }).click();
  expect(await page.locator("tbody tr").count()).toBe(1);
  await shot(page, "08-otps");
  await page.getByRole("link", { name: "Webhook" }).click();
  expect(await page.locator("tbody tr").count()).toBeGreaterThan(1);
  await shot(page, "09-webhook-attempts");
  await page.getByRole("link", { name: "SMPP & sender ids" }).click();
  expect(await page.locator("dd code").first().textContent()).toBe("acme01");
  // Destructive actions ask first where scripts run: dismissing changes nothing, accepting resets.
  const before = await t.db.prisma.smppCredential.findUniqueOrThrow({ where: { accountId: acme.accountId } });
  const asked = new Promise<string>((resolve) =>
    page.once("dialog", (dialog) => {
      resolve(dialog.message());
      void dialog.dismiss();
    }),
  );
  await page.getByRole("button", { name: "Reset SMPP password" }).click();
  expect(await asked).toContain("Reset the SMPP password?");
  expect(await page.locator("#secret-value").count()).toBe(0);
  expect(
    (await t.db.prisma.smppCredential.findUniqueOrThrow({ where: { accountId: acme.accountId } }))
      .passwordHash,
  ).toBe(before.passwordHash);
  page.once("dialog", (dialog) => {
    expect(dialog.message()).toContain("Reset the SMPP password?");
    void dialog.accept();
  });
  await page.getByRole("button", { name: "Reset SMPP password" }).click();
  expect((await page.locator("#secret-value").textContent())!.trim()).toMatch(/^[A-Za-z0-9]{8}$/);
  await shot(page, "10-smpp");
});

it("is usable by keyboard: the first Tab reaches the skip link, focus is visible", async () => {
  await page.goto(`${t.url}/messages`);
  await page.keyboard.press("Tab");
  // Strings, not functions: they run in the page, and this tree compiles without the DOM types.
  expect(await page.evaluate("document.activeElement.textContent")).toBe("Skip to content");
  const outline = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle");
  expect(outline).toBe("solid");
});

it("meets WCAG AA text contrast on every page", async () => {
  const pages = [
    "/",
    "/messages",
    `/messages/${messageId}`,
    "/otps",
    "/inbound",
    "/settings/api-keys",
    "/settings/webhook",
    "/settings/smpp",
    "/settings/suppressions",
  ];
  for (const pagePath of pages) {
    await page.goto(`${t.url}${pagePath}`);
    expect({ pagePath, failures: await page.evaluate(FIND_LOW_CONTRAST) }).toEqual({
      pagePath,
      failures: [],
    });
  }
  const anonymous = await browser.newPage();
  await anonymous.goto(`${t.url}/sign-in`);
  expect(await anonymous.evaluate(FIND_LOW_CONTRAST)).toEqual([]);
  await anonymous.close();
});

it("refuses a form whose CSRF token was tampered with", async () => {
  await page.goto(`${t.url}/settings/api-keys`);
  await page.getByLabel("Name").fill("forged");
  await page.evaluate(`document.querySelectorAll("input[name=_csrf]").forEach((i) => (i.value = "forged"))`);
  const response = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST"),
    page.getByRole("button", { name: "Create key" }).click(),
  ]);
  expect(response[0].status()).toBe(403);
  expect(await page.locator("h1").textContent()).toBe("This form has expired");
  await shot(page, "11-csrf-refused");
  expect(await t.db.prisma.apiKey.count({ where: { accountId: acme.accountId, name: "forged" } })).toBe(0);
});

it("locks the address after repeated wrong passwords", async () => {
  const victim = await t.createAccount();
  const context = await browser.newContext();
  const other = await context.newPage();
  for (let i = 0; i < t.config.DASHBOARD_LOCKOUT_ATTEMPTS; i++) {
    await signIn(other, { ...victim, password: `wrong ${i}` });
    expect(await other.locator("#f-password-error").textContent()).toContain("do not match");
  }
  await signIn(other, victim);
  expect(await other.locator("[role=alert]").textContent()).toContain("Too many wrong passwords");
  expect(other.url()).toContain("/sign-in");
  await shot(other, "12-locked-out");
  await context.close();
});

it("fits 360 px: no page scrolls sideways", async () => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2 });
  const phone = await context.newPage();
  await signIn(phone, acme);
  const pages = [
    "/",
    "/messages",
    `/messages/${messageId}`,
    "/otps",
    "/inbound",
    "/settings/api-keys",
    "/settings/webhook",
    "/settings/smpp",
    "/settings/suppressions",
  ];
  for (const [i, pagePath] of pages.entries()) {
    await phone.goto(`${t.url}${pagePath}`);
    const { scrollWidth, clientWidth } = (await phone.evaluate(
      "({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })",
    )) as { scrollWidth: number; clientWidth: number };
    expect({ pagePath, scrollWidth }).toEqual({ pagePath, scrollWidth: clientWidth });
    await shot(
      phone,
      `360-${String(i + 1).padStart(2, "0")}${pagePath.replace(/\//g, "-").replace(/-$/, "") || "-overview"}`,
    );
  }
  await context.close();
});

// Test support: a real dashboard on an ephemeral port with its own database and Redis
// prefix, accounts with signed-in people, and a small cookie-keeping HTTP client.
import { hashPassword } from "@sms/auth";
import { createDatabase, type Database } from "@sms/db";
import { newId, ulid } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { loadDashboardConfig, type DashboardConfig } from "../src/config";
import { startDashboard, type RunningDashboard } from "../src/service";

export interface TestDashboard {
  url: string;
  /** The internal health port: /readyz with each dependency's state, /metrics. */
  healthUrl: string;
  world: TestWorld;
  db: Database;
  config: DashboardConfig;
  dashboard: RunningDashboard;
  /** An account with credits, a sender id and one person who can sign in. */
  createAccount(options?: { credits?: number; senders?: string[] }): Promise<TestAccount>;
  stop(): Promise<void>;
}

export interface TestAccount {
  accountId: string;
  email: string;
  password: string;
  userId: string;
}

export async function startTestDashboard(
  env: Record<string, string> = {},
  world?: TestWorld,
): Promise<TestDashboard> {
  const ownWorld = world ?? (await createTestWorld());
  const config = loadDashboardConfig({
    ...ownWorld.env,
    PORT: "0",
    HEALTH_PORT: "0",
    HOST: "127.0.0.1",
    DASHBOARD_SECURE_COOKIES: "false",
    WEBHOOK_ALLOW_LOOPBACK: "true",
    WEBHOOK_ALLOW_HTTP: "true",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error",
    ...env,
  });
  const dashboard = await startDashboard(config, createLogger("dashboard-test", config.LOG_LEVEL));
  const db = createDatabase(ownWorld.databaseUrl, { poolSize: 4 });
  return {
    url: `http://127.0.0.1:${dashboard.port}`,
    healthUrl: `http://127.0.0.1:${dashboard.healthPort}`,
    world: ownWorld,
    db,
    config,
    dashboard,
    async createAccount(options = {}) {
      const accountId = newId("acc");
      const userId = `usr_${ulid()}`;
      const email = `${userId.toLowerCase()}@example.com`;
      const password = `pw-${ulid()}`;
      await db.prisma.account.create({
        data: {
          id: accountId,
          name: `Acme ${accountId.slice(-6)}`,
          balance: BigInt(options.credits ?? 1000),
          senderIds: { create: (options.senders ?? ["ACME"]).map((value) => ({ id: newId("snd"), value })) },
          dashboardUsers: { create: { id: userId, email, passwordHash: await hashPassword(password) } },
        },
      });
      return { accountId, email, password, userId };
    },
    async stop() {
      await dashboard.stop();
      await db.close();
      if (!world) await ownWorld.destroy();
    },
  };
}

export interface Reply {
  status: number;
  body: string;
  headers: Headers;
  location: string | null;
}

/** A browser-like client without a browser: keeps cookies, reads CSRF tokens from forms. */
export class Client {
  readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  async request(
    method: "GET" | "POST",
    path: string,
    form?: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const body = form
      ? new URLSearchParams(
          Object.entries(form).flatMap(([k, v]) =>
            Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v] as [string, string]],
          ),
        ).toString()
      : undefined;
    const response = await fetch(this.baseUrl + path, {
      method,
      redirect: "manual",
      headers: {
        ...(body !== undefined && { "content-type": "application/x-www-form-urlencoded" }),
        ...(this.cookies.size > 0 && {
          cookie: [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; "),
        }),
        ...headers,
      },
      body,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = decodeURIComponent(pair.slice(eq + 1));
      if (attributes.some((a) => /max-age=0/i.test(a.trim()))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: response.status,
      body: await response.text(),
      headers: response.headers,
      location: response.headers.get("location"),
    };
  }

  get(path: string): Promise<Reply> {
    return this.request("GET", path);
  }

  /** POSTs a form with the CSRF token of `page` (the page the form is on), as a browser would. */
  async post(path: string, form: Record<string, string | string[]> = {}, page?: Reply): Promise<Reply> {
    const source = page ?? (await this.get("/"));
    return this.request("POST", path, { _csrf: csrfOf(source.body), ...form });
  }

  async signIn(account: { email: string; password: string }): Promise<Reply> {
    const page = await this.get("/sign-in");
    return this.request("POST", "/sign-in", {
      _csrf: csrfOf(page.body),
      email: account.email,
      password: account.password,
    });
  }
}

/** The CSRF token of the first form on a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error("no CSRF token on this page");
  return match[1];
}

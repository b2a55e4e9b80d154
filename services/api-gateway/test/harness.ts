import crypto from "node:crypto";
import { generateApiKey, PERMISSIONS, type Permission } from "@sms/auth";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger, type Logger } from "@sms/logger";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { loadGatewayConfig } from "../src/config";
import { startGateway, type RunningGateway } from "../src/server";

export interface TestAccount {
  accountId: string;
  key: string;
  keyId: string;
}

export interface TestGateway {
  url: string;
  /** The internal health port: /readyz with each dependency's state, /metrics. */
  healthUrl: string;
  world: TestWorld;
  db: Database;
  gateway: RunningGateway;
  /** An active account with credits, sender ids and one key (all permissions unless given). */
  createAccount(options?: {
    credits?: number;
    senders?: string[];
    requestsPerSecond?: number;
    dailyQuota?: number;
    maxBatchSize?: number;
    permissions?: Permission[];
  }): Promise<TestAccount>;
  /** Another API key of the account (all permissions unless given); returns the key. */
  addKey(account: TestAccount, permissions?: Permission[]): Promise<string>;
  /** fetch against the gateway with JSON body and bearer key. */
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/** A real gateway on an ephemeral port, with its own database and Redis prefix. */
export async function startTestGateway(
  env: Record<string, string> = {},
  world?: TestWorld,
  logger: Logger = createLogger("api-gateway-test", "error"),
): Promise<TestGateway> {
  const ownWorld = world ?? (await createTestWorld());
  const config = loadGatewayConfig({
    // For worlds built by hand (private servers); createTestWorld's env has its own.
    SECRET_ENCRYPTION_KEY: crypto.randomBytes(32).toString("base64"),
    OTP_HMAC_SECRET: crypto.randomBytes(32).toString("base64url"),
    ...ownWorld.env,
    PORT: "0",
    HEALTH_PORT: "0",
    HOST: "127.0.0.1",
    AUTH_CACHE_SECONDS: "0",
    ...env,
  });
  const gateway = await startGateway(config, logger);
  const db = createDatabase(ownWorld.databaseUrl, { poolSize: 4 });
  const url = `http://127.0.0.1:${gateway.port}`;
  return {
    url,
    healthUrl: `http://127.0.0.1:${gateway.healthPort}`,
    world: ownWorld,
    db,
    gateway,
    async createAccount(options = {}) {
      const accountId = newId("acc");
      const apiKey = generateApiKey();
      const keyId = newId("key");
      await db.prisma.account.create({
        data: {
          id: accountId,
          name: `test ${accountId}`,
          balance: BigInt(options.credits ?? 1000),
          requestsPerSecond: options.requestsPerSecond ?? 10000,
          dailyQuota: options.dailyQuota ?? 1_000_000,
          maxBatchSize: options.maxBatchSize ?? 10000,
          senderIds: { create: (options.senders ?? ["ACME"]).map((value) => ({ id: newId("snd"), value })) },
          apiKeys: {
            create: {
              id: keyId,
              name: "test",
              prefix: apiKey.prefix,
              hash: apiKey.hash,
              permissions: options.permissions ?? [...PERMISSIONS],
            },
          },
        },
      });
      return { accountId, key: apiKey.key, keyId };
    },
    async addKey(account, permissions = [...PERMISSIONS]) {
      const apiKey = generateApiKey();
      await db.prisma.apiKey.create({
        data: {
          id: newId("key"),
          accountId: account.accountId,
          name: "another",
          prefix: apiKey.prefix,
          hash: apiKey.hash,
          permissions,
        },
      });
      return apiKey.key;
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      const response = await fetch(url + path, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async stop() {
      await gateway.stop();
      await db.close();
      if (!world) await ownWorld.destroy();
    },
  };
}

/** Asserts the documented error shape and returns the error object. */
export function expectError(
  response: { status: number; body: any; headers: Headers },
  status: number,
  code: string,
) {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(typeof response.body.error.message).toBe("string");
  expect(response.body.error.message.length).toBeGreaterThan(10);
  expect(response.body.error.request_id).toMatch(/^req_[0-9A-Z]{26}$/);
  expect(response.headers.get("x-request-id")).toBe(response.body.error.request_id);
  return response.body.error as { code: string; message: string; field?: string; details?: unknown[] };
}

import type { PrismaClient, Queryable, WebhookEndpoint } from "@sms/db";
import { SecretBoxError, type SecretBox } from "@sms/secret-box";
import type { UrlPolicy } from "@sms/ssrf-guard";
import { parseEventTypes } from "../events";
import { generateSecret } from "@sms/webhook-signing";
import { validateWebhookUrl } from "./validate-url";

/** The old secret keeps signing this long after a rotation (docs/webhooks.md#secret-rotation). */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export type DisableReason = "gone" | "failing" | "operator";

/** Refusals a caller should show as they are (unknown account, no endpoint yet). */
export class WebhookEndpointError extends Error {
  override readonly name = "WebhookEndpointError";
  constructor(
    readonly code: "ACCOUNT_NOT_FOUND" | "NO_ENDPOINT",
    message: string,
  ) {
    super(message);
  }
}

/** An endpoint as operators and customers see it: never the secrets. */
export interface EndpointView {
  accountId: string;
  url: string;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  failingSince: Date | null;
  /** The event types it receives; null is every message.* event (the default). */
  eventTypes: readonly string[] | null;
  /** Until when the previous secret also signs; null when there is none. */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What the delivery worker needs: where to, whether at all, and every secret that signs now. */
export interface DeliveryTarget {
  accountId: string;
  url: string;
  enabled: boolean;
  /** The current secret first, then the previous one while its overlap lasts. */
  secrets: string[];
  failingSince: Date | null;
}

/** Settings of the one webhook endpoint per account (docs/webhooks.md#the-endpoint; the admin CLI and dashboard use it). */
export class WebhookEndpoints {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
    private readonly policy: UrlPolicy,
  ) {}

  /**
   * Sets the account's URL after checking it. A first registration creates the signing
   * secret and returns it; a new URL on an existing endpoint keeps the secret and
   * re-enables the endpoint (a new URL is the usual fix for what disabled it).
   * `eventTypes` sets the subscription too (null: every event); left out, an existing
   * endpoint keeps its own and a new one gets every event.
   */
  async register(
    accountId: string,
    url: string,
    options: { eventTypes?: readonly string[] | null } = {},
  ): Promise<{ endpoint: EndpointView; secret: string | null }> {
    await this.requireAccount(accountId);
    const checked = (await validateWebhookUrl(url, this.policy)).toString();
    const eventTypes = options.eventTypes === undefined ? undefined : checkSubscription(options.eventTypes);
    const registered = await this.registerUrl(accountId, checked);
    if (eventTypes === undefined) return registered;
    return { endpoint: await this.writeEventTypes(accountId, eventTypes), secret: registered.secret };
  }

  private async registerUrl(
    accountId: string,
    checked: string,
  ): Promise<{ endpoint: EndpointView; secret: string | null }> {
    const existing = await this.prisma.webhookEndpoint.findUnique({ where: { accountId } });
    if (existing && this.opens(existing)) {
      const row = await this.prisma.webhookEndpoint.update({
        where: { accountId },
        data: { url: checked, enabled: true, disabledReason: null, disabledAt: null, failingSince: null },
      });
      return { endpoint: view(row), secret: null };
    }
    if (existing) {
      // Sealed under another SECRET_ENCRYPTION_KEY: nothing can sign with it any more,
      // so registering again is how an operator recovers: a new secret, shown once.
      const secret = generateSecret();
      const row = await this.prisma.webhookEndpoint.update({
        where: { accountId },
        data: {
          url: checked,
          secretSealed: this.box.seal(secret, accountId),
          previousSecretSealed: null,
          previousSecretExpires: null,
          enabled: true,
          disabledReason: null,
          disabledAt: null,
          failingSince: null,
        },
      });
      return { endpoint: view(row), secret };
    }
    const secret = generateSecret();
    const row = await this.prisma.webhookEndpoint.create({
      data: { accountId, url: checked, secretSealed: this.box.seal(secret, accountId) },
    });
    return { endpoint: view(row), secret };
  }

  /**
   * Changes only which events the endpoint receives (null: every event); events already
   * turned into deliveries are sent as they are.
   */
  async setEventTypes(accountId: string, eventTypes: readonly string[] | null): Promise<EndpointView> {
    const checked = checkSubscription(eventTypes);
    await this.require(accountId);
    return this.writeEventTypes(accountId, checked);
  }

  /** Raw SQL: Prisma types a scalar list as never null, and null (every event) is the default we keep. */
  private async writeEventTypes(accountId: string, eventTypes: string[] | null): Promise<EndpointView> {
    await this.prisma.$executeRaw`
      UPDATE webhook_endpoints SET event_types = ${eventTypes}::text[], updated_at = now()
      WHERE account_id = ${accountId}`;
    return view(await this.prisma.webhookEndpoint.findUniqueOrThrow({ where: { accountId } }));
  }

  /** A new secret; the old one keeps signing for 24 h so receivers can switch without losing events. */
  async rotate(accountId: string, now = new Date()): Promise<{ secret: string; previousExpiresAt: Date }> {
    const row = await this.require(accountId);
    const secret = generateSecret();
    const previousExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    await this.prisma.webhookEndpoint.update({
      where: { accountId },
      data: {
        secretSealed: this.box.seal(secret, accountId),
        previousSecretSealed: row.secretSealed,
        previousSecretExpires: previousExpiresAt,
      },
    });
    return { secret, previousExpiresAt };
  }

  /** The secrets in clear, for the account's own people (dashboard reveal, CLI --reveal). */
  async reveal(accountId: string, now = new Date()): Promise<{ current: string; previous: string | null }> {
    const target = deliveryTarget(await this.require(accountId), this.box, now);
    return { current: target.secrets[0]!, previous: target.secrets[1] ?? null };
  }

  async get(accountId: string): Promise<EndpointView | null> {
    const row = await this.prisma.webhookEndpoint.findUnique({ where: { accountId } });
    return row ? view(row) : null;
  }

  async enable(accountId: string): Promise<EndpointView> {
    await this.require(accountId);
    const row = await this.prisma.webhookEndpoint.update({
      where: { accountId },
      data: { enabled: true, disabledReason: null, disabledAt: null, failingSince: null },
    });
    return view(row);
  }

  /** Disables the endpoint; true when this call changed it (so the caller logs it once). */
  async disable(accountId: string, reason: DisableReason, now = new Date()): Promise<boolean> {
    const { count } = await this.prisma.webhookEndpoint.updateMany({
      where: { accountId, enabled: true },
      data: { enabled: false, disabledReason: reason, disabledAt: now },
    });
    return count === 1;
  }

  /** The delivery view of an endpoint, or null when the account has none. */
  async loadTarget(accountId: string, now = new Date()): Promise<DeliveryTarget | null> {
    const row = await this.prisma.webhookEndpoint.findUnique({ where: { accountId } });
    return row ? deliveryTarget(row, this.box, now) : null;
  }

  private opens(row: WebhookEndpoint): boolean {
    try {
      this.box.open(row.secretSealed, row.accountId);
      return true;
    } catch (error) {
      if (error instanceof SecretBoxError) return false;
      throw error;
    }
  }

  private async require(accountId: string): Promise<WebhookEndpoint> {
    const row = await this.prisma.webhookEndpoint.findUnique({ where: { accountId } });
    if (row) return row;
    await this.requireAccount(accountId);
    throw new WebhookEndpointError(
      "NO_ENDPOINT",
      `account ${accountId} has no webhook endpoint; set one first`,
    );
  }

  private async requireAccount(accountId: string): Promise<void> {
    const account = await this.prisma.account.findUnique({ where: { id: accountId }, select: { id: true } });
    if (!account) throw new WebhookEndpointError("ACCOUNT_NOT_FOUND", `no account ${accountId}`);
  }
}

/** The stored form: null for all, else a checked list (EventTypesError for an unknown or empty one). */
function checkSubscription(eventTypes: readonly string[] | null): string[] | null {
  return eventTypes === null ? null : parseEventTypes(eventTypes);
}

/** The column is nullable though Prisma types a scalar list as never null; empty is refused by a CHECK. */
function storedEventTypes(row: WebhookEndpoint): readonly string[] | null {
  const stored = row.eventTypes as string[] | null;
  return stored === null || stored.length === 0 ? null : stored;
}

function view(row: WebhookEndpoint): EndpointView {
  return {
    accountId: row.accountId,
    url: row.url,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt,
    failingSince: row.failingSince,
    eventTypes: storedEventTypes(row),
    previousSecretExpiresAt: row.previousSecretSealed ? row.previousSecretExpires : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The columns of an endpoint a delivery needs. */
type SealedTarget = Pick<
  WebhookEndpoint,
  | "accountId"
  | "url"
  | "enabled"
  | "secretSealed"
  | "previousSecretSealed"
  | "previousSecretExpires"
  | "failingSince"
>;

/** Its secrets opened: the current one, and the previous one while its rotation overlap lasts. */
function deliveryTarget(row: SealedTarget, box: SecretBox, now: Date): DeliveryTarget {
  const secrets = [box.open(row.secretSealed, row.accountId)];
  if (row.previousSecretSealed && row.previousSecretExpires && row.previousSecretExpires > now) {
    secrets.push(box.open(row.previousSecretSealed, row.accountId));
  }
  return {
    accountId: row.accountId,
    url: row.url,
    enabled: row.enabled,
    secrets,
    failingSince: row.failingSince,
  };
}

const DELIVERY_TARGET = `
SELECT account_id AS "accountId", url, enabled, secret_sealed AS "secretSealed",
       previous_secret_sealed AS "previousSecretSealed", previous_secret_expires_at AS "previousSecretExpires",
       failing_since AS "failingSince"
FROM webhook_endpoints WHERE account_id = $1`;

/**
 * `WebhookEndpoints.loadTarget` for the delivery worker, in one prepared statement on `db`.
 * A Prisma query cost the worker ~0.7 ms of CPU warm (~5 ms while cold) against ~0.1 ms,
 * and the first one of a process ~150 ms compiling Prisma's query compiler (WebAssembly):
 * the worker reloads each endpoint it sends to every WEBHOOK_ENDPOINT_CACHE_MS.
 */
export async function loadDeliveryTarget(
  db: Queryable,
  box: SecretBox,
  accountId: string,
  now = new Date(),
): Promise<DeliveryTarget | null> {
  const { rows } = await db.query<SealedTarget>({
    name: "webhook-delivery-target",
    text: DELIVERY_TARGET,
    values: [accountId],
  });
  return rows[0] ? deliveryTarget(rows[0], box, now) : null;
}

import type pg from "pg";
import type { Logger } from "@sms/logger";
import type { SecretBox } from "@sms/secret-box";
import {
  loadDeliveryTarget,
  type DeliveryTarget,
  type DisableReason,
  type WebhookEndpoints,
} from "@sms/webhooks";

interface Cached {
  target: DeliveryTarget | null;
  loadedAt: number;
  loading?: Promise<DeliveryTarget | null>;
}

const MARK_FAILING = `
UPDATE webhook_endpoints SET failing_since = $2 WHERE account_id = $1 AND failing_since IS NULL
RETURNING failing_since`;
const MARK_HEALTHY = `UPDATE webhook_endpoints SET failing_since = NULL WHERE account_id = $1 AND failing_since IS NOT NULL`;

/**
 * Endpoint settings as the worker sees them (cached for `cacheMs`, loaded once for all
 * concurrent jobs of an account), and the failure bookkeeping of docs/webhooks.md#disabling-and-replay: the start
 * of a run of failures is written once, cleared by a success, and a run longer than
 * `disableAfterMs` disables the endpoint; a 410 disables it at once.
 */
export class EndpointHealth {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly pool: pg.Pool,
    private readonly box: SecretBox,
    private readonly logger: Logger,
    private readonly options: { cacheMs: number; disableAfterMs: number },
  ) {}

  async target(accountId: string): Promise<DeliveryTarget | null> {
    const now = Date.now();
    const cached = this.cache.get(accountId);
    if (cached?.loading) return cached.loading;
    if (cached && now - cached.loadedAt < this.options.cacheMs) return cached.target;
    const entry: Cached = { target: cached?.target ?? null, loadedAt: cached?.loadedAt ?? 0 };
    entry.loading = loadDeliveryTarget(this.pool, this.box, accountId).then(
      (target) => {
        this.cache.set(accountId, { target, loadedAt: Date.now() });
        return target;
      },
      (error: unknown) => {
        this.cache.delete(accountId);
        throw error;
      },
    );
    this.cache.set(accountId, entry);
    return entry.loading;
  }

  async succeeded(target: DeliveryTarget): Promise<void> {
    if (target.failingSince === null) return;
    target.failingSince = null;
    await this.pool.query({
      name: "webhook-endpoint-healthy",
      text: MARK_HEALTHY,
      values: [target.accountId],
    });
  }

  async failed(target: DeliveryTarget, at: Date): Promise<void> {
    if (target.failingSince === null) {
      const { rows } = await this.pool.query<{ failing_since: Date }>({
        name: "webhook-endpoint-failing",
        text: MARK_FAILING,
        values: [target.accountId, at],
      });
      target.failingSince = rows[0]?.failing_since ?? at;
    }
    if (at.getTime() - target.failingSince.getTime() >= this.options.disableAfterMs) {
      await this.disable(target, "failing");
    }
  }

  async disable(target: DeliveryTarget, reason: DisableReason): Promise<void> {
    target.enabled = false;
    if (await this.endpoints.disable(target.accountId, reason)) {
      this.logger.warn("webhook endpoint disabled", {
        account_id: target.accountId,
        reason,
        url: target.url,
      });
    }
  }
}

import {
  admits,
  nextTransition,
  type BreakerSettings,
  type BreakerState,
  type CarrierHealthReport,
  type CarrierHealthStore,
} from "@sms/carrier-health";
import type { Logger } from "@sms/logger";
import { startLoop, type Loop } from "@sms/service-runtime";
import { CarrierBackoff } from "./carrier-backoff";

/** What one submit told us about the carrier. */
export type SubmitResult =
  | "accepted" // ESME_ROK
  | "refused" // a refusal about the message (destination, our PDU): the carrier is well
  | "failed" // a temporary error, or a route-specific permanent one (docs: failover)
  | "throttled" // ESME_RTHROTTLED / ESME_RMSGQFUL
  | "unanswered" // no response in SUBMIT_TIMEOUT_MS: fate unknown
  | "lost"; // the connection dropped with it on the wire: fate unknown, but the bind's trouble (it reconnects), not the breaker's

/** Results that count against the carrier in the breaker's window. */
const FAILURES = new Set<SubmitResult>(["failed", "throttled", "unanswered"]);

/** Leave to submit to a carrier: `probe` holds the half-open state's version when this is a probe. */
export interface Admission {
  carrierId: string;
  probe: number | null;
}

/** Each carrier's binds as this replica has them (CarrierPool.status()). */
export type BindsReading = Record<
  string,
  { bound: number; total: number; outstanding: number; window: number }
>;

export interface CarrierHealthOptions {
  store: CarrierHealthStore;
  settings: BreakerSettings;
  logger: Logger;
  /** This process, for its share of the window use in the shared record. */
  instance: string;
  /** How often this replica adds its counts to the shared record and reads the breakers. */
  syncMs: number;
  /** First pause after a throttled or temporary answer, doubled (carrier-backoff.ts). */
  backoffMs: number;
  binds: () => BindsReading;
  onSubmit?: (carrierId: string, result: SubmitResult) => void;
  onTransition?: (carrierId: string, to: BreakerState) => void;
}

/**
 * This replica's side of carrier health: it counts submit results, adds them to the record
 * every replica shares (Redis) every `syncMs`, runs the breaker's state machine on what comes
 * back, and answers from the last reading whether a carrier may be used. An open carrier is
 * skipped by routing; a half-open one takes only the probes the shared record hands out.
 */
export class CarrierHealth {
  readonly backoff: CarrierBackoff;
  private readonly reports = new Map<string, CarrierHealthReport>();
  private readonly counts = new Map<string, { ok: number; failed: number }>();
  /** Admissions whose submit was written (a result recorded): the rest sent nothing. */
  private readonly used = new WeakSet<Admission>();
  private syncLoop: Loop | undefined;
  private syncing: Promise<void> | undefined;

  constructor(private readonly options: CarrierHealthOptions) {
    this.backoff = new CarrierBackoff(options.backoffMs);
  }

  /** The breaker's state as last read (closed for a carrier not read yet). */
  state(carrierId: string): BreakerState {
    return this.reports.get(carrierId)?.record.state ?? "closed";
  }

  /** The last reading of every carrier this replica syncs (metrics). */
  latest(): CarrierHealthReport[] {
    return [...this.reports.values()];
  }

  /** Leave to submit to the carrier, or null while its breaker is open (or half open with no permit left). */
  async admit(carrierId: string): Promise<Admission | null> {
    const report = this.reports.get(carrierId);
    const verdict = admits(report?.record.state ?? "closed");
    if (verdict === "yes") return { carrierId, probe: null };
    if (verdict === "no" || !report) return null;
    const version = report.record.version;
    const granted = await this.options.store
      .takeProbe(carrierId, version, this.options.settings.probes)
      .catch(() => false);
    return granted ? { carrierId, probe: version } : null;
  }

  /** Counts one submit's result (a probe's verdict goes to the shared record at once). */
  record(admission: Admission, result: SubmitResult): void {
    const { carrierId } = admission;
    this.used.add(admission);
    this.options.onSubmit?.(carrierId, result);
    // Neither a success nor a failure of the carrier; a lost probe is made up for at half_open's end.
    if (result === "lost") return;
    const failed = FAILURES.has(result);
    if (result === "throttled" || result === "failed") this.backoff.hit(carrierId);
    if (result === "accepted") this.backoff.clear(carrierId);
    if (admission.probe !== null) {
      void this.options.store
        .probeVerdict(carrierId, admission.probe, !failed)
        .then(() => this.syncOne(carrierId))
        .catch((error: unknown) =>
          this.options.logger.warn("probe verdict not recorded", { error: String(error) }),
        );
      return;
    }
    const counts = this.counts.get(carrierId) ?? { ok: 0, failed: 0 };
    if (failed) counts.failed++;
    else counts.ok++;
    this.counts.set(carrierId, counts);
  }

  /**
   * Ends an admission. A probe that sent nothing (its turn ended, its message left queued, no
   * bind) gives its permit back, so another submit probes now instead of the carrier staying
   * half open until `openMs` passes without the verdict.
   */
  release(admission: Admission): void {
    if (admission.probe === null || this.used.has(admission)) return;
    this.used.add(admission);
    void this.options.store
      .returnProbe(admission.carrierId, admission.probe)
      .catch((error: unknown) =>
        this.options.logger.warn("probe permit not given back", { error: String(error) }),
      );
  }

  start(): void {
    this.syncLoop = startLoop({
      name: "carrier health sync",
      intervalMs: this.options.syncMs,
      firstTickAfterMs: this.options.syncMs,
      logger: this.options.logger,
      tick: () => this.syncAll(),
    });
  }

  async stop(): Promise<void> {
    await this.syncLoop?.stop();
    await this.syncing;
  }

  /** Adds this replica's counts and binds of every carrier to the shared record and reads it back. */
  syncAll(): Promise<void> {
    const carriers = Object.keys(this.options.binds());
    for (const id of this.reports.keys()) if (!carriers.includes(id)) this.reports.delete(id);
    // One pass at a time: a slow Redis must not pile passes up.
    this.syncing ??= Promise.all(carriers.map((id) => this.syncOne(id)))
      .then(() => undefined)
      .finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private async syncOne(carrierId: string): Promise<void> {
    const counts = this.counts.get(carrierId) ?? { ok: 0, failed: 0 };
    this.counts.delete(carrierId);
    const binds = this.options.binds()[carrierId];
    try {
      let report = await this.options.store.sync(
        carrierId,
        counts,
        binds && {
          instance: this.options.instance,
          outstanding: binds.outstanding,
          window: binds.window,
          bound: binds.bound,
          binds: binds.total,
        },
      );
      const transition = nextTransition(report.record, report.now, this.options.settings);
      if (transition && (await this.options.store.transition(carrierId, report.record, transition))) {
        this.options.logger.warn("carrier breaker", {
          carrier: carrierId,
          from: report.record.state,
          to: transition.state,
          reason: transition.reason,
        });
        this.options.onTransition?.(carrierId, transition.state);
        report = await this.options.store.sync(carrierId, { ok: 0, failed: 0 });
      }
      this.reports.set(carrierId, report);
    } catch (error) {
      // Counts not added are added next time; the last reading stands meanwhile.
      const pending = this.counts.get(carrierId) ?? { ok: 0, failed: 0 };
      this.counts.set(carrierId, { ok: pending.ok + counts.ok, failed: pending.failed + counts.failed });
      this.options.logger.warn("carrier health sync failed", { carrier: carrierId, error: String(error) });
    }
  }
}

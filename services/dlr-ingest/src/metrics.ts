import {
  HttpMetrics,
  MetricsRegistry,
  ReceiptIngestMetrics,
  SmppMetrics,
  type CarrierBindsReading,
} from "@sms/metrics";

/** What dlr-ingest reports on /metrics: receipts taken in, receiver binds, the HTTP receipt endpoint, the process. */
export class Metrics extends ReceiptIngestMetrics {
  readonly registry: MetricsRegistry;
  readonly contentType: string;
  readonly http: HttpMetrics;
  readonly smpp: SmppMetrics;

  /** @param receiverBinds the receiver binds per carrier now, read at scrape time */
  constructor(receiverBinds: () => CarrierBindsReading[] = () => [], registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
    this.contentType = registry.contentType;
    this.http = new HttpMetrics(registry);
    this.smpp = new SmppMetrics(registry);
    this.smpp.watchCarrierBinds("receiver", receiverBinds);
  }

  /** The /metrics text. */
  render(): Promise<string> {
    return this.registry.render();
  }
}

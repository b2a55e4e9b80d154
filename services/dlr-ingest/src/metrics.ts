/**
 * The few counters this service exposes on GET /metrics, in the Prometheus text format
 * (a handful of counters does not need a client library).
 */
export class Metrics {
  private readonly counters = new Map<string, { help: string; values: Map<string, number> }>();

  constructor(
    private readonly gauges: () => Array<{
      name: string;
      help: string;
      labels: Record<string, string>;
      value: number;
    }> = () => [],
  ) {}

  /** Adds `by` to counter `name` with `labels`. */
  increment(name: string, help: string, labels: Record<string, string> = {}, by = 1): void {
    let counter = this.counters.get(name);
    if (!counter) this.counters.set(name, (counter = { help, values: new Map() }));
    const key = formatLabels(labels);
    counter.values.set(key, (counter.values.get(key) ?? 0) + by);
  }

  /** The exposition text. */
  render(): string {
    const lines: string[] = [];
    for (const [name, { help, values }] of this.counters) {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [labels, value] of values) lines.push(`${name}${labels} ${value}`);
    }
    const byName = new Map<string, string[]>();
    for (const gauge of this.gauges()) {
      if (!byName.has(gauge.name))
        byName.set(gauge.name, [`# HELP ${gauge.name} ${gauge.help}`, `# TYPE ${gauge.name} gauge`]);
      byName.get(gauge.name)!.push(`${gauge.name}${formatLabels(gauge.labels)} ${gauge.value}`);
    }
    for (const gaugeLines of byName.values()) lines.push(...gaugeLines);
    return `${lines.join("\n")}\n`;
  }
}

function formatLabels(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  const escape = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
  return `{${entries.map(([key, value]) => `${key}="${escape(value)}"`).join(",")}}`;
}

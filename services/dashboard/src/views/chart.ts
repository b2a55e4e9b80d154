import { html, type Html } from "./html";

export const CHART_STATUSES = ["delivered", "sent", "queued", "scheduled", "failed", "canceled"] as const;
export type ChartStatus = (typeof CHART_STATUSES)[number];

/** Fills with at least 3:1 against white (WCAG 1.4.11 non-text contrast). */
const FILL: Record<ChartStatus, string> = {
  delivered: "#15803d",
  sent: "#7e22ce",
  queued: "#1d4ed8",
  scheduled: "#a16207",
  failed: "#b91c1c",
  canceled: "#4b5563",
};

export interface HourBucket {
  /** Start of the hour (UTC). */
  start: Date;
  counts: Partial<Record<ChartStatus, number>>;
}

const WIDTH = 720;
const HEIGHT = 240;
const PAD = { top: 12, right: 8, bottom: 28, left: 44 };

/** A round axis maximum ≥ `max`: 1, 2, 5 × 10^n. */
export function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

/**
 * Messages of the last 24 hours per hour, stacked by status, as server-rendered SVG; the
 * same numbers follow in a table for screen readers and anyone who wants them exact.
 */
export function hourlyChart(buckets: readonly HourBucket[]): Html {
  const totals = buckets.map((b) => CHART_STATUSES.reduce((sum, s) => sum + (b.counts[s] ?? 0), 0));
  const top = niceCeiling(Math.max(0, ...totals));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, buckets.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (value: number) => PAD.top + plotH - (value / top) * plotH;
  const bars = buckets.map((bucket, i) => {
    let base = 0;
    const x = PAD.left + i * slot + (slot - barW) / 2;
    return CHART_STATUSES.filter((s) => (bucket.counts[s] ?? 0) > 0).map((status) => {
      const count = bucket.counts[status] ?? 0;
      const rect = html`<rect
        x="${x.toFixed(1)}"
        y="${y(base + count).toFixed(1)}"
        width="${barW.toFixed(1)}"
        height="${((count / top) * plotH).toFixed(1)}"
        fill="${FILL[status]}"
        ><title>${hourLabel(bucket.start)}: ${count} ${status}</title></rect
      >`;
      base += count;
      return rect;
    });
  });
  const ticks = [0, top / 2, top].map(
    (value) =>
      html`<line
          x1="${PAD.left}"
          x2="${WIDTH - PAD.right}"
          y1="${y(value).toFixed(1)}"
          y2="${y(value).toFixed(1)}"
          stroke="#d1d5db"
        />
        <text
          x="${PAD.left - 6}"
          y="${(y(value) + 4).toFixed(1)}"
          text-anchor="end"
          font-size="12"
          fill="#374151"
          >${formatTick(value)}</text
        >`,
  );
  const labels = buckets.map((bucket, i) =>
    i % 3 === 0
      ? html`<text
          x="${(PAD.left + i * slot + slot / 2).toFixed(1)}"
          y="${HEIGHT - 8}"
          text-anchor="middle"
          font-size="12"
          fill="#374151"
          >${hourLabel(bucket.start).slice(0, 2)}h</text
        >`
      : "",
  );
  const sum = totals.reduce((a, b) => a + b, 0);
  return html`<figure class="chart">
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-labelledby="chart-title chart-desc"
      focusable="false"
    >
      <title id="chart-title">Messages per hour, last 24 hours, by status</title>
      <desc id="chart-desc">
        ${sum} messages in 24 hours; the busiest hour had ${Math.max(0, ...totals)}. The table below has every
        number.
      </desc>
      ${ticks}${bars}${labels}
    </svg>
    <ul class="legend">
      ${CHART_STATUSES.map(
        (s) =>
          html`<li><span class="swatch" style="background:${FILL[s]}" aria-hidden="true"></span>${s}</li>`,
      )}
    </ul>
    <details>
      <summary>The numbers per hour</summary>
      <div class="table-wrap" role="region" aria-label="Messages per hour" tabindex="0">
        <table>
          <thead>
            <tr>
              <th scope="col">Hour (UTC)</th>
              ${CHART_STATUSES.map((s) => html`<th scope="col">${s}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${buckets.map(
              (b) =>
                html`<tr>
                  <th scope="row">${hourLabel(b.start)}</th>
                  ${CHART_STATUSES.map((s) => html`<td>${b.counts[s] ?? 0}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>
  </figure>`;
}

function hourLabel(start: Date): string {
  return `${start.toISOString().slice(11, 13)}:00`;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** Hand-made SVG bar charts of daily usage: no chart library, nothing inline that a strict CSP refuses. */

export interface DailyUsage {
  date: string;
  credits_used: number;
  requests: { scrape: number; 'scrape-v1': number; parse: number };
  llm_tokens: { input: number; output: number };
}

export interface Series {
  key: string;
  label: string;
  value: (day: DailyUsage) => number;
}

const WIDTH = 600;
const HEIGHT = 170;
const PAD = { left: 44, right: 8, top: 10, bottom: 26 };

/** A round number at or above `max`, so the axis reads 10, 50, 200... rather than 37. */
function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

function compact(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${+(n / 1_000).toFixed(1)}k`;
  return String(n);
}

/** Stacked bars, one per day, one colour per series (CSS classes `series-<key>`). */
export function UsageChart({ title, days, series, id }: { title: string; days: DailyUsage[]; series: Series[]; id: string }) {
  const totals = days.map((d) => series.reduce((sum, s) => sum + s.value(d), 0));
  const top = niceCeiling(Math.max(0, ...totals));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const sum = totals.reduce((a, b) => a + b, 0);
  const labelled = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1]);
  return (
    <figure class="chart" data-chart={id}>
      <figcaption>
        <span class="chart-title">{title}</span>
        <span class="legend">
          {series.map((s) => (
            <span key={s.key} class="legend-item">
              <span class={`swatch series-${s.key}`} aria-hidden="true" />
              {s.label}
            </span>
          ))}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${title}: ${sum} over ${days.length} days, ${totals[totals.length - 1] ?? 0} today`}>
        <line class="axis" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(0)} y2={y(0)} />
        <line class="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(top)} y2={y(top)} />
        <text class="tick" x={PAD.left - 6} y={y(top) + 4} text-anchor="end">
          {compact(top)}
        </text>
        <text class="tick" x={PAD.left - 6} y={y(0) + 4} text-anchor="end">
          0
        </text>
        {days.map((d, i) => {
          let base = 0;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={d.date} data-date={d.date}>
              {series.map((s) => {
                const v = s.value(d);
                if (v === 0) return null;
                const rect = (
                  <rect key={s.key} class={`bar series-${s.key}`} data-series={s.key} data-value={v} x={x} width={barW} y={y(base + v)} height={Math.max(1, y(base) - y(base + v))}>
                    <title>{`${d.date} ${s.label}: ${v}`}</title>
                  </rect>
                );
                base += v;
                return rect;
              })}
              {labelled.has(i) && (
                <text class="tick" x={x + barW / 2} y={HEIGHT - 8} text-anchor="middle">
                  {d.date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <details>
        <summary>{title} as a table</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {series.map((s) => (
                  <th key={s.key} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{d.date}</th>
                  {series.map((s) => (
                    <td key={s.key}>{s.value(d)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

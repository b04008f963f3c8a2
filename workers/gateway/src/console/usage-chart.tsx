/**
 * A stacked bar chart of token cost per UTC day and route, drawn on the server as SVG: axes, tick
 * labels, a title and a description for assistive technology, a tooltip per segment. No script.
 */
export interface DailyRouteCost {
  day: string;
  route: string;
  costUnits: number;
}

const palette = ["#3867d6", "#20bf6b", "#f7b731", "#eb3b5a", "#8854d0", "#a5b1c2"];
const maxSeries = palette.length - 1;
/** The scale is on the right, beside the latest days: where a phone, scrolled to them, shows it. */
const size = { width: 760, height: 280, left: 12, right: 56, top: 12, bottom: 44 };
const axisX = size.width - size.right;

/** Display tokens of integer cost units (20 → 0.2). */
export const tokens = (units: number) => String(Math.round(units) / 100);

/** The routes drawn on their own (the costliest), the rest summed as "Other routes". */
export function seriesOf(rows: DailyRouteCost[]): string[] {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.route, (totals.get(row.route) ?? 0) + row.costUnits);
  const ranked = [...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([route]) => route);
  return ranked.length > maxSeries + 1 ? [...ranked.slice(0, maxSeries), "Other routes"] : ranked;
}

/** A round step for about four ticks up to `max` units. */
function tickStep(max: number): number {
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 5, 10].map((factor) => factor * magnitude).find((step) => step >= rough) ?? 10 * magnitude) || 1;
}

export function UsageChart({ days, rows }: { days: string[]; rows: DailyRouteCost[] }) {
  const series = seriesOf(rows);
  const seriesIndex = (route: string) => {
    const index = series.indexOf(route);
    return index === -1 ? series.length - 1 : index;
  };
  const stacks = new Map(days.map((day) => [day, series.map(() => 0)]));
  for (const row of rows) {
    const stack = stacks.get(row.day);
    if (stack) stack[seriesIndex(row.route)] = (stack[seriesIndex(row.route)] ?? 0) + row.costUnits;
  }
  const dayTotals = days.map((day) => (stacks.get(day) ?? []).reduce((sum, units) => sum + units, 0));
  const total = dayTotals.reduce((sum, units) => sum + units, 0);
  const step = tickStep(Math.max(...dayTotals, 100));
  const top = Math.ceil(Math.max(...dayTotals, 100) / step) * step;
  const plotWidth = size.width - size.left - size.right;
  const plotHeight = size.height - size.top - size.bottom;
  const band = plotWidth / days.length;
  const y = (units: number) => size.top + plotHeight - (units / top) * plotHeight;
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, index) => index * step);
  const busiest = dayTotals.indexOf(Math.max(...dayTotals));
  // About six dates under the axis, whatever the range.
  const labelEvery = Math.ceil(days.length / 6);
  const description =
    total === 0
      ? `No token cost from ${days[0]} to ${days.at(-1)}.`
      : `${tokens(total)} tokens from ${days[0]} to ${days.at(-1)}; the busiest day was ${days[busiest]} with ${tokens(dayTotals[busiest] ?? 0)}. Routes: ${series.join(", ")}.`;
  return (
    <figure>
      {/* A phone scrolls the chart sideways rather than shrinking its text past reading: a focusable region, so keys scroll it too. */}
      <section class="chart-box" tabindex={0} aria-label="Usage chart, scrolls sideways on narrow screens">
        <svg
          role="img"
          aria-labelledby="usage-title usage-desc"
          viewBox={`0 0 ${size.width} ${size.height}`}
          width="100%"
          xmlns="http://www.w3.org/2000/svg"
        >
          <title id="usage-title">Tokens per day and route</title>
          <desc id="usage-desc">{description}</desc>
          {ticks.map((tick) => (
            <g>
              <line x1={size.left} x2={size.width - size.right} y1={y(tick)} y2={y(tick)} stroke="#e3e6eb" />
              <text x={axisX + 6} y={y(tick) + 4} text-anchor="start">
                {tokens(tick)}
              </text>
            </g>
          ))}
          {days.map((day, index) => {
            let base = 0;
            const x = size.left + index * band + band * 0.15;
            return (
              <g>
                {(stacks.get(day) ?? []).map((units, seriesNumber) => {
                  if (units === 0) return null;
                  const segment = (
                    <rect
                      x={x}
                      width={band * 0.7}
                      y={y(base + units)}
                      height={y(base) - y(base + units)}
                      fill={palette[seriesNumber]}
                    >
                      <title>{`${day} · ${series[seriesNumber]}: ${tokens(units)} tokens`}</title>
                    </rect>
                  );
                  base += units;
                  return segment;
                })}
                {(days.length - 1 - index) % labelEvery === 0 && (
                  <text x={x + band * 0.35} y={size.height - size.bottom + 16} text-anchor="middle">
                    {day.slice(5)}
                  </text>
                )}
              </g>
            );
          })}
          <line x1={axisX} x2={axisX} y1={size.top} y2={size.top + plotHeight} stroke="#1d2330" />
          <line
            x1={size.left}
            x2={size.width - size.right}
            y1={size.top + plotHeight}
            y2={size.top + plotHeight}
            stroke="#1d2330"
          />
          <text x={axisX} y={size.height - 6} text-anchor="end">
            UTC day
          </text>
          <text
            x={size.width - 16}
            y={size.top + plotHeight / 2}
            text-anchor="middle"
            transform={`rotate(90 ${size.width - 16} ${size.top + plotHeight / 2})`}
          >
            Tokens
          </text>
        </svg>
      </section>
      <figcaption class="legend">
        {series.map((route, index) => (
          <span>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" fill={palette[index]} />
            </svg>
            {route}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/**
 * The dashboard's 30-day trend, drawn as inline SVG (no chart library: nothing added to the first load but
 * this file). The SVG is one image with a text alternative; the same numbers are in a table under it, so a
 * screen reader or a keyboard user reads every day. Series differ by dash pattern as well as by colour.
 */
import type { Schemas } from '../api/client';

type Day = Schemas['Dashboard']['data']['trend'][number];

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { left: 44, right: 16, top: 12, bottom: 28 };
const DAYS = 30;
const DAY_MS = 86_400_000;

const SERIES = [
  { key: 'open', label: 'Open' },
  { key: 'critical', label: 'Critical' },
  { key: 'kev', label: 'Known exploited (KEV)' },
  { key: 'undecided', label: 'Undecided' },
] as const satisfies ReadonlyArray<{ key: keyof Day; label: string }>;

/** A round upper bound for the y axis (1, 2, 5 × 10ⁿ), at least 4 so that small counts get whole ticks. */
function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= value) ?? 10;
  return step * power;
}

const dayNumber = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);

/** The text alternative: the range, the first and last counts, the peak. */
export function trendSummary(trend: Day[]): string {
  const first = trend[0];
  const last = trend.at(-1);
  if (!first || !last) return 'No daily counts stored yet.';
  const peak = trend.reduce((best, day) => (day.open > best.open ? day : best), first);
  return (
    `Open findings per day from ${first.day} to ${last.day} (${trend.length} days stored): ` +
    `${first.open} on ${first.day}, ${last.open} on ${last.day}, highest ${peak.open} on ${peak.day}. ` +
    `Known exploited on ${last.day}: ${last.kev}; critical: ${last.critical}.`
  );
}

export function TrendChart({ trend, today }: { trend: Day[]; today: string }) {
  const lastDay = dayNumber(today);
  const firstDay = lastDay - (DAYS - 1);
  const inWindow = trend.filter((day) => dayNumber(day.day) >= firstDay);
  const top = niceMax(Math.max(0, ...inWindow.flatMap((day) => SERIES.map((series) => day[series.key]))));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (day: string) => PAD.left + ((dayNumber(day) - firstDay) / (DAYS - 1)) * plotWidth;
  const y = (count: number) => PAD.top + plotHeight - (count / top) * plotHeight;
  const ticks = [0, top / 4, top / 2, (3 * top) / 4, top];
  const label = (offset: number) => new Date((firstDay + offset) * DAY_MS).toISOString().slice(5, 10);

  return (
    <figure class="trend">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby="trend-title trend-desc"
        class="trend-chart"
        focusable="false"
      >
        <title id="trend-title">Open findings, last 30 days</title>
        <desc id="trend-desc">{trendSummary(inWindow)}</desc>
        {ticks.map((tick) => (
          <g key={tick}>
            <line class="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text class="axis" x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
              {Number.isInteger(tick) ? tick : ''}
            </text>
          </g>
        ))}
        {[0, 7, 14, 21, 29].map((offset) => (
          <text
            key={offset}
            class="axis"
            x={PAD.left + (offset / (DAYS - 1)) * plotWidth}
            y={HEIGHT - 8}
            text-anchor="middle"
          >
            {label(offset)}
          </text>
        ))}
        {SERIES.map((series) => (
          <g key={series.key} class={`series series-${series.key}`}>
            <polyline
              points={inWindow.map((day) => `${x(day.day).toFixed(1)},${y(day[series.key]).toFixed(1)}`).join(' ')}
            />
            {inWindow.map((day) => (
              <circle key={day.day} cx={x(day.day)} cy={y(day[series.key])} r={2.5} />
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        <ul class="legend">
          {SERIES.map((series) => (
            <li key={series.key}>
              <span class={`swatch swatch-${series.key}`} aria-hidden="true" />
              {series.label}
            </li>
          ))}
        </ul>
        <p class="muted small">
          Counts are stored once a day (by the first dashboard read or the corpus refresh); days without one are absent.
        </p>
      </figcaption>
      <details>
        <summary>The numbers, day by day</summary>
        <table>
          <caption class="visually-hidden">Open findings per day, last 30 days</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {SERIES.map((series) => (
                <th scope="col" key={series.key}>
                  {series.label}
                </th>
              ))}
              <th scope="col">High</th>
            </tr>
          </thead>
          <tbody>
            {inWindow.map((day) => (
              <tr key={day.day}>
                <th scope="row">{day.day}</th>
                {SERIES.map((series) => (
                  <td key={series.key}>{day[series.key]}</td>
                ))}
                <td>{day.high}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

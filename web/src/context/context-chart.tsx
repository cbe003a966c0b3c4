/**
 * The Context chart (issue 18): a session's estimated context tokens over its log, by seq or by turn (a radio group
 * switches the x-axis), as inline SVG built from JSX (no chart library), with each drop — native compaction, DCP
 * compress, DCP prune — a distinct marked element (`data-drop-kind`, an accessible name and a tooltip) that links to
 * its message in the Session view (issue 28).
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { WebContextDrop, WebContextPoint } from '../../../src/protocol/web/web-api.js';
import { hrefOf } from '../router.js';

const WIDTH = 800;
const HEIGHT = 260;
const PAD = { left: 56, right: 16, top: 28, bottom: 36 } as const;

/** How each drop kind is named in words. */
export const DROP_NAMES: Readonly<Record<WebContextDrop['kind'], string>> = {
  compaction: 'native compaction',
  'dcp-compress': 'DCP compress',
  'dcp-prune': 'DCP prune',
};

/** Round numbers for an axis from 0 to `max`. */
function ticks(max: number, count: number): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= max + step / 2; v += step) out.push(v);
  return out;
}

/** What the x-axis counts. */
type ChartAxis = 'seq' | 'turn';

/** The choices of the axis switch, in the order shown. */
const AXES: ReadonlyArray<{ readonly axis: ChartAxis; readonly label: string }> = [
  { axis: 'seq', label: 'By seq' },
  { axis: 'turn', label: 'By turn' },
];

/** The chart of `points` with `drops` marked, by seq (the default) or by turn; each drop links to its message. */
export function ContextChart({
  sessionId,
  points,
  drops,
}: {
  sessionId: string;
  points: readonly WebContextPoint[];
  drops: readonly WebContextDrop[];
}): JSX.Element {
  const [axis, setAxis] = useState<ChartAxis>('seq');
  if (points.length === 0) return <p class="hint">This session has no events to chart.</p>;
  // A drop is a surface change, so it has a point of its own seq: its turn is that point's.
  const turnOfSeq = new Map(points.map((p) => [p.seq, p.turn]));
  const at = (seq: number, turn: number): number => (axis === 'seq' ? seq : turn);
  const dropAt = (drop: WebContextDrop): number => at(drop.seq, turnOfSeq.get(drop.seq) ?? 0);
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const minSeq = at(first.seq, first.turn);
  const maxSeq = Math.max(at(last.seq, last.turn), minSeq + 1);
  const peak = Math.max(1, ...points.map((p) => p.tokens), ...drops.map((d) => d.tokensBefore));
  const yTicks = ticks(peak, 4);
  const top = yTicks[yTicks.length - 1] ?? peak;
  const x = (seq: number): number => PAD.left + ((seq - minSeq) / (maxSeq - minSeq)) * (WIDTH - PAD.left - PAD.right);
  const y = (tokens: number): number => HEIGHT - PAD.bottom - (tokens / top) * (HEIGHT - PAD.top - PAD.bottom);
  // A step line: the context keeps its size until the next event changes it, so a drop is a vertical edge.
  const line = points
    .map((p, i) => {
      const px = x(at(p.seq, p.turn)).toFixed(1);
      return i === 0 ? `M${px},${y(p.tokens).toFixed(1)}` : `H${px} V${y(p.tokens).toFixed(1)}`;
    })
    .join(' ');
  const xTicks = ticks(maxSeq, 6).filter((t) => t >= minSeq);
  return (
    <figure class="context-chart">
      <div class="chart-axis-switch" role="radiogroup" aria-label="X axis">
        {AXES.map((choice) => (
          <label key={choice.axis}>
            <input
              type="radio"
              name="context-chart-axis"
              value={choice.axis}
              checked={axis === choice.axis}
              onChange={() => setAxis(choice.axis)}
            />
            {choice.label}
          </label>
        ))}
      </div>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby="chart-title chart-desc"
        data-axis={axis}
        class="chart"
        preserveAspectRatio="xMidYMid meet"
      >
        <title id="chart-title">{`Estimated context tokens over the log, by ${axis}`}</title>
        <desc id="chart-desc">
          {`${points.length} points from ${axis} ${minSeq} to ${at(last.seq, last.turn)}, peak ${Math.max(...points.map((p) => p.tokens))} tokens, ${drops.length} drops`}
        </desc>
        <g class="axis">
          {yTicks.map((t) => (
            <g key={`y${t}`}>
              <line class="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(t)} y2={y(t)} />
              <text class="tick" x={PAD.left - 6} y={y(t) + 4} text-anchor="end">
                {t}
              </text>
            </g>
          ))}
          {xTicks.map((t) => (
            <text key={`x${t}`} class="tick tick-x" x={x(t)} y={HEIGHT - PAD.bottom + 16} text-anchor="middle">
              {t}
            </text>
          ))}
          <text class="axis-label axis-label-x" x={(WIDTH + PAD.left) / 2} y={HEIGHT - 4} text-anchor="middle">
            {axis}
          </text>
          <text class="axis-label" x={PAD.left - 6} y={12} text-anchor="end">
            tokens
          </text>
        </g>
        <path class="series" d={line} />
        <g class="drops">
          {drops.map((drop, index) => {
            const name = `${DROP_NAMES[drop.kind]}${drop.blockId === undefined ? '' : ` ${drop.blockId}`} at seq ${drop.seq}: ${drop.tokensBefore} → ${drop.tokensAfter} tokens`;
            return (
              <a
                key={`${drop.kind}-${drop.seq}-${index}`}
                class="drop-link"
                href={hrefOf({ view: 'session', sessionId, seq: drop.seq })}
                aria-label={`${name}; show the message`}
              >
                <g class={`drop drop-${drop.kind}`} data-drop-kind={drop.kind} data-seq={drop.seq}>
                  <title>{name}</title>
                  <line class="drop-line" x1={x(dropAt(drop))} x2={x(dropAt(drop))} y1={y(drop.tokensBefore)} y2={y(drop.tokensAfter)} />
                  {/* A wider transparent line makes the whole drop easy to click. */}
                  <line class="drop-hit" x1={x(dropAt(drop))} x2={x(dropAt(drop))} y1={y(drop.tokensBefore)} y2={y(drop.tokensAfter)} />
                  <circle class="drop-dot" cx={x(dropAt(drop))} cy={y(drop.tokensAfter)} r={5} />
                </g>
              </a>
            );
          })}
        </g>
      </svg>
      <figcaption class="legend">
        <span class="legend-item legend-series">estimated context</span>
        {(Object.keys(DROP_NAMES) as WebContextDrop['kind'][]).map((kind) => (
          <span key={kind} class={`legend-item legend-${kind}`}>
            {DROP_NAMES[kind]} ({drops.filter((d) => d.kind === kind).length})
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

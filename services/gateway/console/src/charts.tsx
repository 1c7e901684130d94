import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  DoughnutController,
  ArcElement,
  CategoryScale,
  LinearScale,
  Tooltip,
  Legend,
);
Chart.defaults.font.family = "'Inter Variable', system-ui, sans-serif";
Chart.defaults.font.size = 12;
Chart.defaults.color = '#667085';
Chart.defaults.borderColor = '#eef0f3';

/** The series colours, in order: distinguishable, and dark enough on white. */
export const PALETTE = [
  '#4f46e5',
  '#0ea5e9',
  '#10b981',
  '#f59e0b',
  '#ef4444',
  '#8b5cf6',
  '#64748b',
];

export interface Series {
  label: string;
  values: number[];
  color?: string;
  /** A line over the bars, on its own axis on the right. */
  line?: boolean;
}

/**
 * A Chart.js chart on a canvas; `summary` is what a screen reader hears instead (the same numbers
 * are in a table next to every chart).
 */
function ChartCanvas(props: {
  config: ChartConfiguration;
  /** Changes when the data does: only then is the chart drawn anew. */
  signature: string;
  summary: string;
  height?: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart>();
  useEffect(() => {
    chart.current = new Chart(canvas.current!, props.config);
    return () => chart.current?.destroy();
  }, [props.signature]);
  return (
    <div class="chart" style={{ height: `${props.height ?? 260}px` }}>
      <canvas ref={canvas} role="img" aria-label={props.summary} />
    </div>
  );
}

/** A long category label (an API path) by its end, so a narrow chart does not cut it off; the tooltip shows it whole. */
function shortLabel(label: string, max = 22): string {
  return label.length > max ? `…${label.slice(-(max - 1))}` : label;
}

export function BarChart(props: {
  labels: string[];
  series: Series[];
  stacked?: boolean;
  summary: string;
  height?: number;
  format?: (n: number) => string;
  horizontal?: boolean;
  /** Counts (calls): the value axis has whole numbers only. */
  integers?: boolean;
}) {
  const hasLine = props.series.some((s) => s.line);
  const tick = props.format ? (value: string | number) => props.format!(Number(value)) : undefined;
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: props.labels,
      datasets: props.series.map((s, i) => {
        const color = s.color ?? PALETTE[i % PALETTE.length];
        return s.line
          ? {
              type: 'line' as const,
              label: s.label,
              data: s.values,
              borderColor: color,
              backgroundColor: color,
              pointRadius: 2,
              tension: 0.3,
              yAxisID: 'y2',
            }
          : {
              type: 'bar' as const,
              label: s.label,
              data: s.values,
              backgroundColor: color,
              borderRadius: 4,
              maxBarThickness: 28,
              stack: props.stacked ? 'all' : s.label,
            };
      }) as ChartConfiguration['data']['datasets'],
    },
    options: {
      indexAxis: props.horizontal ? 'y' : 'x',
      maintainAspectRatio: false,
      animation: false,
      interaction: { mode: 'index', intersect: false },
      plugins: {
        legend: {
          display: props.series.length > 1,
          position: 'bottom',
          labels: { boxWidth: 10, boxHeight: 10, useBorderRadius: true, borderRadius: 3 },
        },
        tooltip: {
          callbacks: props.format
            ? {
                label: (item) => `${item.dataset.label}: ${props.format!(Number(item.raw ?? 0))}`,
              }
            : {},
        },
      },
      scales: {
        x: {
          stacked: props.stacked,
          grid: { display: !!props.horizontal },
          ticks: props.horizontal
            ? tick
              ? { callback: tick }
              : { precision: props.integers ? 0 : undefined }
            : { maxRotation: 0, autoSkipPadding: 14 },
        },
        y: {
          stacked: props.stacked,
          beginAtZero: true,
          grid: { display: !props.horizontal },
          ticks: props.horizontal
            ? { callback: (_value, index) => shortLabel(props.labels[index] ?? '') }
            : tick
              ? { callback: tick }
              : props.integers
                ? { precision: 0 }
                : {},
        },
        ...(hasLine
          ? { y2: { position: 'right' as const, beginAtZero: true, grid: { display: false } } }
          : {}),
      },
    },
  };
  return (
    <ChartCanvas
      config={config}
      signature={JSON.stringify([props.labels, props.series, props.stacked])}
      summary={props.summary}
      height={props.height}
    />
  );
}

export function DoughnutChart(props: {
  labels: string[];
  values: number[];
  summary: string;
  format?: (n: number) => string;
  height?: number;
}) {
  const config: ChartConfiguration<'doughnut'> = {
    type: 'doughnut',
    data: {
      labels: props.labels,
      datasets: [
        {
          data: props.values,
          backgroundColor: props.labels.map((_, i) => PALETTE[i % PALETTE.length]),
          borderWidth: 2,
          borderColor: '#fff',
        },
      ],
    },
    options: {
      maintainAspectRatio: false,
      animation: false,
      cutout: '68%',
      plugins: {
        legend: { position: 'right', labels: { boxWidth: 10, boxHeight: 10 } },
        tooltip: props.format
          ? { callbacks: { label: (item) => `${item.label}: ${props.format!(Number(item.raw))}` } }
          : {},
      },
    },
  };
  return (
    <ChartCanvas
      config={config as unknown as ChartConfiguration}
      signature={JSON.stringify([props.labels, props.values])}
      summary={props.summary}
      height={props.height ?? 220}
    />
  );
}

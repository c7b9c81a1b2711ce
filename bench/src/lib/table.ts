/** One line of the results table. Figures arrive formatted; `met` is undefined for information only. */
export interface Row {
  scenario: string;
  requestsPerSecond?: number;
  p50?: string;
  p99?: string;
  /** Microseconds of CPU per request: the answering process's and PostgreSQL's. */
  cpu?: { server?: number; postgres?: number };
  ratio?: number;
  target?: string;
  met?: boolean;
}

const HEADER = [
  'scenario',
  'requests/s',
  'p50',
  'p99',
  'CPU µs/request: server + PostgreSQL',
  'ratio',
  'target',
  'met',
];

export function formatMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

export function formatMb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function formatCpu(cpu: Row['cpu']): string | undefined {
  if (cpu?.server === undefined) return undefined;
  return cpu.postgres === undefined ? cpu.server.toFixed(0) : `${cpu.server.toFixed(0)} + ${cpu.postgres.toFixed(0)}`;
}

function cell(value: string | undefined): string {
  return value === undefined || value === '' ? '—' : value.replace(/\|/g, '\\|');
}

export function markdownTable(rows: readonly Row[]): string {
  const lines = [
    `| ${HEADER.join(' | ')} |`,
    `| ${HEADER.map((_, index) => (index === 0 ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const row of rows) {
    lines.push(
      `| ${[
        row.scenario,
        row.requestsPerSecond === undefined ? undefined : Math.round(row.requestsPerSecond).toLocaleString('en-US'),
        row.p50,
        row.p99,
        formatCpu(row.cpu),
        row.ratio === undefined ? undefined : row.ratio.toFixed(2),
        row.target,
        row.met === undefined ? undefined : row.met ? 'yes' : '**no**',
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] as number;
}

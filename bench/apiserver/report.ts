// Tables (Markdown, so the README can quote them as printed) and an SVG chart of the ratios.
import type { LatencySummary, Result } from './stats.ts';

export interface Report {
  baseline: string;
  targets: string[];
  results: Result[];
}

function lookup(report: Report): (workload: string, target: string) => Result | undefined {
  const byKey = new Map(report.results.map((r) => [`${r.workload}\u0000${r.target}`, r]));
  return (w, t) => byKey.get(`${w}\u0000${t}`);
}

function workloads(report: Report): string[] {
  return [...new Set(report.results.map((r) => r.workload))];
}

function num(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '—';
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !(a > 0) || !(b > 0)) return '—';
  return `${(a / b).toFixed(2)}×`;
}

/** `*` when the phase hit its time bound, `!` when some operations failed. */
function flags(r: Result | undefined): string {
  if (!r) return '';
  return (r.ops < r.planned && r.errors === 0 ? '*' : '') + (r.errors > 0 ? '!' : '');
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function throughputTable(report: Report): string {
  const get = lookup(report);
  const others = report.targets.filter((t) => t !== report.baseline);
  const header = ['workload', 'unit', report.baseline, ...others.flatMap((t) => [t, `${t}/kube`])];
  const rows = workloads(report).map((w) => {
    const base = get(w, report.baseline);
    return [
      w,
      base?.unit ?? get(w, others[0] ?? '')?.unit ?? '',
      num(base?.throughput) + flags(base),
      ...others.flatMap((t) => {
        const r = get(w, t);
        return [num(r?.throughput) + flags(r), ratio(r?.throughput, base?.throughput)];
      }),
    ];
  });
  return table(header, rows);
}

function pcts(l: LatencySummary | undefined): string {
  return l ? `${num(l.p50)} / ${num(l.p95)} / ${num(l.p99)}` : '—';
}

export function latencyTable(report: Report): string {
  const get = lookup(report);
  const others = report.targets.filter((t) => t !== report.baseline);
  const header = [
    'workload (ms: p50 / p95 / p99)',
    report.baseline,
    ...others.flatMap((t) => [t, `${t}/kube p50, p99`]),
  ];
  const series: { label: string; pick: (r: Result | undefined) => LatencySummary | undefined }[] =
    [];
  for (const w of workloads(report)) {
    if (w.startsWith('watch')) {
      series.push({ label: `${w} ack→event`, pick: (r) => r?.latencyMs });
      series.push({ label: `${w} sent→event`, pick: (r) => r?.extraLatencyMs?.['fromSend'] });
    } else series.push({ label: w, pick: (r) => r?.latencyMs });
  }
  const rows = series.map(({ label, pick }) => {
    const w = label.replace(/ (ack|sent)→event$/, '');
    const base = pick(get(w, report.baseline));
    return [
      label,
      pcts(base),
      ...others.flatMap((t) => {
        const l = pick(get(w, t));
        return [pcts(l), `${ratio(l?.p50, base?.p50)}, ${ratio(l?.p99, base?.p99)}`];
      }),
    ];
  });
  return table(header, rows);
}

export function cpuTable(report: Report): string {
  const get = lookup(report);
  const measured = report.targets.filter((t) =>
    report.results.some((r) => r.target === t && r.serverCpuMsPerOp !== undefined),
  );
  if (!measured.includes(report.baseline)) return '';
  const others = measured.filter((t) => t !== report.baseline);
  const header = [
    'workload (server CPU ms per op)',
    report.baseline,
    ...others.flatMap((t) => [t, `${t}/kube`]),
  ];
  const rows = workloads(report).map((w) => {
    const base = get(w, report.baseline)?.serverCpuMsPerOp;
    return [
      w,
      num(base),
      ...others.flatMap((t) => {
        const v = get(w, t)?.serverCpuMsPerOp;
        return [num(v), ratio(v, base)];
      }),
    ];
  });
  return table(header, rows);
}

const escape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Throughput ratio (embedded / kube) per workload on a log2 axis from 1/16× to 16×: bars right
 * of the 1× line mean the embedded server did more per second.
 */
export function ratioChart(report: Report): string {
  const get = lookup(report);
  const others = report.targets.filter((t) => t !== report.baseline);
  const colours = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759'];
  const ws = workloads(report);
  const labelW = 300;
  const plotW = 480;
  const barH = 8;
  const groupH = barH * others.length + 8;
  const top = 40;
  const height = top + ws.length * groupH + 40;
  const width = labelW + plotW + 40;
  const x = (r: number): number => {
    const clamped = Math.min(4, Math.max(-4, Math.log2(r)));
    return labelW + ((clamped + 4) / 8) * plotW;
  };
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="18" font-size="13">Throughput, embedded ÷ kube-apiserver (log scale; right of 1× = embedded faster)</text>`,
  ];
  for (const tick of [1 / 16, 1 / 4, 1, 4, 16]) {
    const tx = x(tick);
    const label = tick >= 1 ? `${tick}×` : `1/${1 / tick}×`;
    parts.push(
      `<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${height - 30}" stroke="${tick === 1 ? '#000' : '#ddd'}"/>`,
      `<text x="${tx}" y="${height - 16}" text-anchor="middle">${label}</text>`,
    );
  }
  ws.forEach((w, i) => {
    const gy = top + i * groupH;
    parts.push(
      `<text x="${labelW - 6}" y="${gy + groupH / 2 + 2}" text-anchor="end">${escape(w)}</text>`,
    );
    const base = get(w, report.baseline)?.throughput;
    others.forEach((t, j) => {
      const v = get(w, t)?.throughput;
      if (!base || !v) return;
      const x1 = x(1);
      const x2 = x(v / base);
      parts.push(
        `<rect x="${Math.min(x1, x2)}" y="${gy + 4 + j * barH}" width="${Math.max(1, Math.abs(x2 - x1))}" height="${barH - 1}" fill="${colours[j % colours.length]}"/>`,
      );
    });
  });
  others.forEach((t, j) => {
    const lx = labelW + j * 120;
    parts.push(
      `<rect x="${lx}" y="${top - 18}" width="10" height="10" fill="${colours[j % colours.length]}"/>`,
      `<text x="${lx + 14}" y="${top - 9}">${escape(t)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

// The latency plot as a PNG (pngjs): one point per claim, x = when it was created (s from the
// first create), y = latency in ms on a log scale from 1 ms to 1,000 s, client watch latency in blue
// and controller latency in orange, horizontal guides at each power of ten from 10 ms (grey) and at the
// 50 and 500 ms targets (red). One panel per target, stacked.
import { PNG } from 'pngjs';
import { writeFileSync } from 'node:fs';

export interface PlotSeries {
  title: string;
  /** [createdAtSeconds, clientMs, controllerMs] per claim. */
  points: [number, number, number][];
}

const W = 900;
const PANEL = 300;
const PAD = 30;
type Rgb = [number, number, number];

export function writeLatencyPng(path: string, panels: readonly PlotSeries[]): void {
  const height = PANEL * Math.max(1, panels.length);
  const png = new PNG({ width: W, height });
  png.data.fill(255);
  const set = (x: number, y: number, [r, g, b]: Rgb): void => {
    if (x < 0 || y < 0 || x >= W || y >= height) return;
    const i = (Math.round(y) * W + Math.round(x)) * 4;
    png.data[i] = r;
    png.data[i + 1] = g;
    png.data[i + 2] = b;
    png.data[i + 3] = 255;
  };
  panels.forEach((panel, p) => {
    const top = p * PANEL + PAD;
    const bottom = (p + 1) * PANEL - PAD;
    const yOf = (ms: number): number => {
      const v = Math.min(6, Math.max(0, Math.log10(Math.max(1, ms))));
      return bottom - (v / 6) * (bottom - top);
    };
    const maxT = Math.max(1, ...panel.points.map(([t]) => t));
    const xOf = (t: number): number => PAD + (t / maxT) * (W - 2 * PAD);
    for (const ms of [10, 100, 1000, 10_000, 100_000])
      for (let x = PAD; x < W - PAD; x++) set(x, yOf(ms), [180, 180, 180]);
    for (const ms of [50, 500])
      for (let x = PAD; x < W - PAD; x += 3) set(x, yOf(ms), [220, 40, 40]);
    for (let y = top; y <= bottom; y++) set(PAD, y, [0, 0, 0]);
    for (let x = PAD; x < W - PAD; x++) set(x, bottom, [0, 0, 0]);
    for (const [t, client, controller] of panel.points) {
      for (const [ms, color] of [
        [controller, [240, 140, 20]],
        [client, [30, 90, 200]],
      ] as [number, Rgb][]) {
        const x = xOf(t);
        const y = yOf(ms);
        for (let dx = -1; dx <= 1; dx++)
          for (let dy = -1; dy <= 1; dy++) set(x + dx, y + dy, color);
      }
    }
  });
  writeFileSync(path, PNG.sync.write(png));
}

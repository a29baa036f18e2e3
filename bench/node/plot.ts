// Horizontal bars on a log axis (1 ms to 10 s) as a PNG (pngjs): one bar per measurement (its
// median), in groups; grey guides at each power of ten.
import { PNG } from 'pngjs';
import { writeFileSync } from 'node:fs';

export interface Bar {
  group: number;
  ms: number;
}

const W = 800;
const ROW = 22;
const LEFT = 20;
type Rgb = [number, number, number];
const COLORS: Rgb[] = [
  [30, 90, 200],
  [240, 140, 20],
  [60, 160, 80],
  [150, 60, 170],
];

export function writeBarsPng(path: string, bars: readonly Bar[]): void {
  const height = ROW * (bars.length + 1);
  const png = new PNG({ width: W, height });
  png.data.fill(255);
  const set = (x: number, y: number, [r, g, b]: Rgb): void => {
    const i = (y * W + x) * 4;
    png.data[i] = r;
    png.data[i + 1] = g;
    png.data[i + 2] = b;
    png.data[i + 3] = 255;
  };
  const xOf = (ms: number): number =>
    Math.round(LEFT + (Math.min(4, Math.max(0, Math.log10(Math.max(1, ms)))) / 4) * (W - 2 * LEFT));
  bars.forEach((b, i) => {
    const color = COLORS[b.group % COLORS.length] ?? [0, 0, 0];
    for (let y = i * ROW + 6; y < i * ROW + ROW; y++)
      for (let x = LEFT; x <= xOf(b.ms); x++) set(x, y, color);
  });
  for (const ms of [1, 10, 100, 1000, 10_000])
    for (let y = 0; y < height; y += 2) set(Math.min(W - 1, xOf(ms)), y, [160, 160, 160]);
  writeFileSync(path, PNG.sync.write(png));
}

// The node-exec start and resize frames as the daemon validates them: what a TTY session may
// carry, and a clear error naming the field for anything else.
import { describe, expect, it } from 'vitest';
import { FrameError, parseResize, parseStart } from './node-exec.ts';

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

describe('parseStart', () => {
  it('keeps tty and the terminal size', () => {
    expect(
      parseStart(
        json({ argv: ['sh'], env: {}, cwd: '/', tty: true, size: { cols: 80, rows: 24 } }),
      ),
    ).toEqual({ argv: ['sh'], env: {}, cwd: '/', tty: true, size: { cols: 80, rows: 24 } });
    expect(parseStart(json({ argv: ['sh'], cwd: '/' }))).toEqual({
      argv: ['sh'],
      env: {},
      cwd: '/',
    });
  });

  it('names the field of a bad tty or size', () => {
    expect(() => parseStart(json({ argv: ['sh'], cwd: '/', tty: 1 }))).toThrow(
      new FrameError('start: tty must be a boolean'),
    );
    expect(() => parseStart(json({ argv: ['sh'], cwd: '/', size: { cols: 80 } }))).toThrow(
      /start: size must be \{cols, rows\} with integers in 0-65535/,
    );
    expect(() => parseStart(json([1]))).toThrow(/argv must be a non-empty list/);
    expect(() => parseStart(Buffer.from('{'))).toThrow(/start: payload is not JSON/);
  });
});

describe('parseResize', () => {
  it('takes {cols, rows} in 0-65535 and refuses anything else', () => {
    expect(parseResize(json({ cols: 120, rows: 40 }))).toEqual({ cols: 120, rows: 40 });
    for (const bad of [
      { cols: -1, rows: 2 },
      { cols: 1.5, rows: 2 },
      { cols: 65536, rows: 1 },
      'x',
    ])
      expect(() => parseResize(json(bad))).toThrow(/resize must be \{cols, rows\}/);
  });
});

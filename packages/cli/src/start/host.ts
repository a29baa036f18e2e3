// The host side of the start module: PATH lookups and the command runner the setup and the demo
// image build use (the CLI is an entry point, so it may read the environment here).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { RunHostCommand } from './system-packages.ts';

/** Whether `binary` is an executable file in one of PATH's directories. */
export function onPath(binary: string, path = process.env['PATH'] ?? ''): boolean {
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, binary), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

export const runHostCommand: RunHostCommand = (file, args, options = {}) =>
  new Promise((resolve) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    let output = '';
    let partial = '';
    const onData = (d: Buffer): void => {
      const text = d.toString('utf8');
      output += text;
      if (!options.onLine) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) options.onLine(line.trim());
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (e) => resolve({ code: 127, output: output + e.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });

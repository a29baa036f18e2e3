// In-process CLI tests of `agent-sandbox apiserver` failures that happen before it binds a port
// (no network). Serving is covered by apiserver.int.test.ts.
import { openStore } from '@agent-sandbox/apiserver';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing.ts';
import { dataDirPaths, parsePort } from './apiserver.ts';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A temp dir of this file, removed when it is done. */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-sandbox-apiserver-'));
  made.push(dir);
  return dir;
}

describe('agent-sandbox apiserver', () => {
  it('is listed with its flags', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/apiserver/);
    const help = await runCli(['apiserver', '--help']);
    expect(help.stdout).toMatch(/--data-dir <dir>/);
    expect(help.stdout).toMatch(/--port <n>/);
  });

  it('requires --data-dir and a valid --port', async () => {
    const missing = await runCli(['apiserver']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/required option '--data-dir <dir>' not specified/);
    for (const port of ['http', '-1', '65536', '1.5']) {
      const bad = await runCli(['apiserver', '--data-dir', tempDir(), '--port', port]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/--port must be an integer from 0 to 65535/);
    }
    expect(parsePort('0')).toBe(0);
    expect(parsePort('6443')).toBe(6443);
  });

  it('fails fast when the data dir cannot be created', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, '');
    const result = await runCli(['apiserver', '--data-dir', join(file, 'data'), '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot create data dir ${join(file, 'data')}: ENOTDIR: not a directory, mkdir '${join(file, 'data')}'; pick a writable --data-dir\n`,
    );
  });

  it('refuses a data dir whose database another server holds', async () => {
    const dir = tempDir();
    const holder = openStore({ path: dataDirPaths(dir).database });
    try {
      const result = await runCli(['apiserver', '--data-dir', dir, '--port', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `error: another agent-sandbox apiserver is using ${dir}; stop it or pick another --data-dir\n`,
      );
    } finally {
      holder.close();
    }
  });

  it('refuses a database file that is not ours and leaves it untouched', async () => {
    const dir = tempDir();
    writeFileSync(dataDirPaths(dir).database, 'hello, not sqlite\n');
    const result = await runCli(['apiserver', '--data-dir', dir, '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: data dir ${dir}: open ${dataDirPaths(dir).database}: not a SQLite database`,
      ),
    );
    expect(readFileSync(dataDirPaths(dir).database, 'utf8')).toBe('hello, not sqlite\n');
  });

  it('refuses a corrupt certificate, names it, and releases the database', async () => {
    const dir = tempDir();
    const pki = dataDirPaths(dir).pki;
    mkdirSync(pki, { recursive: true });
    writeFileSync(join(pki, 'ca.crt'), 'garbage');
    writeFileSync(join(pki, 'ca.key'), 'garbage');
    const result = await runCli(['apiserver', '--data-dir', dir, '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: ${join(pki, 'ca.crt')} is not a PEM certificate; delete the files in ${pki} to generate a new CA (clients must then use the new kubeconfig)\n`,
    );
    expect(readFileSync(join(pki, 'ca.crt'), 'utf8')).toBe('garbage');
    openStore({ path: dataDirPaths(dir).database }).close();
  });
});

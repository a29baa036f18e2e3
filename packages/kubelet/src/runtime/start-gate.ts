// A container created before its Pod's volumes are ready, whose process must not run until they
// are (kube semantics: a container starts once its sandbox is set up). runc's slow part — the
// namespaces, cgroup, mounts — then runs beside the volumes' API reads: config.json gets a
// `createRuntime` hook, which runc runs on the host after the container's mounts are made and
// before it pivots into the root and execs the process, and which returns only once the agent
// has given its verdict. A failing hook fails the create: runc removes the container and exits.
//
// The hook is `sh`: it returns at once when the verdict file exists; otherwise it makes a FIFO
// and opens it for writing, which blocks until the agent opens it for reading. The agent writes
// the verdict (by rename: whole or absent) before it opens the FIFO, and holds it open until the
// container runs or ends, so whichever comes first — the verdict, or the hook's FIFO — neither
// misses the other. The bind-mounted volume directories exist at create; their files are
// written in place before the verdict.
import { constants } from 'node:fs';
import { open, rename, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PATH_ENV } from './foreground-process.ts';

/** config.json `hooks.createRuntime[]` entry (OCI runtime spec). */
export interface OciHook {
  path: string;
  args: string[];
  env?: string[];
  timeout?: number;
}

const SCRIPT =
  '[ -e "$1" ] || { mkfifo -m 600 "$2" 2>/dev/null; [ -e "$1" ] || : > "$2"; }; read -r v < "$1"; [ "$v" = go ]';

/** Longest a created container may wait for its verdict before runc gives up on it (s). */
export const START_GATE_TIMEOUT_S = 600;

export type Verdict = 'go' | 'stop';

export class StartGate {
  readonly #verdict: string;
  readonly #fifo: string;
  #given: Verdict | undefined;
  #reader: FileHandle | undefined;

  /** A gate kept in `dir` (the instance directory, which the container does not see). */
  constructor(dir: string) {
    this.#verdict = join(dir, 'start-verdict');
    this.#fifo = join(dir, 'start-gate');
  }

  get given(): Verdict | undefined {
    return this.#given;
  }

  /** The hook that holds the container until `give()`. Pure. */
  hook(): OciHook {
    return {
      path: '/bin/sh',
      args: ['sh', '-c', SCRIPT, 'asb-start-gate', this.#verdict, this.#fifo],
      env: [`PATH=${PATH_ENV.PATH}`],
      timeout: START_GATE_TIMEOUT_S,
    };
  }

  /** Lets the process run (`go`) or fails the create (`stop`); only the first verdict counts. */
  async give(verdict: Verdict): Promise<void> {
    if (this.#given) return;
    this.#given = verdict;
    const tmp = `${this.#verdict}.tmp`;
    await writeFile(tmp, `${verdict}\n`);
    await rename(tmp, this.#verdict);
    try {
      // O_NONBLOCK: a read end opens at once, with or without a writer.
      this.#reader = await open(this.#fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (e) {
      // No FIFO yet: the hook has not looked, and will find the verdict first.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  /** Once the hook has returned (the container runs or ended): the FIFO's read end goes. */
  async release(): Promise<void> {
    const r = this.#reader;
    this.#reader = undefined;
    await r?.close();
  }
}

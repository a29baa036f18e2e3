// One pod on this node, from acceptance to the final DELETE (kubelet-and-oci §1–2): sandbox,
// volumes, images, init containers in order, regular containers under the restart policy,
// graceful termination. Status is computed by lifecycle/pod-status.ts and written on change.
import type { Container, Pod } from '@agent-sandbox/kube-types';
import { join } from 'node:path';
import { KubeletError, errorMessage, isKubeletError } from '../errors.ts';
import type { ImageRecord } from '../images/image-store.ts';
import {
  initialRecord,
  restartBackoffMs,
  shouldRestart,
  terminatedReason,
  type ContainerRecord,
} from '../lifecycle/container-record.ts';
import { computePodStatus } from '../lifecycle/pod-status.ts';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import type { ContainerRuntime } from '../runtime/container-runtime.ts';
import { buildOciSpec } from '../runtime/oci-spec.ts';
import { ContainerProber } from '../probes/container-prober.ts';
import { probeHandler } from '../probes/probe-state.ts';
import { resolveEnv } from './container-env.ts';
import { ContainerInstance } from './container-instance.ts';
import { criLogPath } from './log-path.ts';
import type { NodeContext } from './node-context.ts';
import { superviseDaemon } from './pod-daemon.ts';
import { podPhaseTimer, type PodPhaseTimer } from './pod-phases.ts';
import { prepareVolumes, volumeMounts } from './pod-volumes.ts';
import { writePodFiles } from './pod-files.ts';

type Slot = { record: ContainerRecord; instance?: ContainerInstance; logs: string[] };

export class PodWorker {
  readonly uid: string;
  #pod: Pod;
  readonly #ctx: NodeContext;
  readonly #slots = new Map<string, Slot>();
  readonly #initNames: string[];
  #network: PodNetworkStatus | undefined;
  #runtime: ContainerRuntime | undefined;
  #terminating = false;
  #gone = false;
  #stopSignal: Promise<void>;
  #stop: () => void = () => undefined;
  #startTime: string;
  #published = '';
  #publishing: Promise<void> = Promise.resolve();
  readonly #timer: PodPhaseTimer;
  readonly done: Promise<void>;

  constructor(ctx: NodeContext, pod: Pod) {
    this.#ctx = ctx;
    this.#pod = pod;
    this.uid = pod.metadata?.uid ?? '';
    this.#startTime = pod.status?.startTime ?? new Date().toISOString();
    this.#stopSignal = new Promise((r) => (this.#stop = r));
    this.#timer = podPhaseTimer(ctx.onPhase, this.#key, this.uid);
    this.#timer.mark('observed');
    const spec = pod.spec;
    const hasInit = (spec?.initContainers ?? []).length > 0;
    this.#initNames = (spec?.initContainers ?? []).map((c) => c.name);
    for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
      const record = initialRecord(
        c.name,
        c.image ?? '',
        hasInit && !this.#initNames.includes(c.name),
      );
      const prev = [
        ...(pod.status?.containerStatuses ?? []),
        ...(pod.status?.initContainerStatuses ?? []),
      ].find((s) => s.name === c.name);
      if (prev) record.restartCount = prev.restartCount + (prev.state?.running ? 1 : 0); // adopted after an agent restart
      this.#slots.set(c.name, { record, logs: [] });
    }
    this.done = this.#run().catch((e: unknown) =>
      ctx.log.error({ pod: this.#key, err: errorMessage(e) }, 'pod worker failed'),
    );
  }

  get #key(): string {
    return `${this.#pod.metadata?.namespace}/${this.#pod.metadata?.name}`;
  }
  get pod(): Pod {
    return this.#pod;
  }
  get netnsPath(): string | undefined {
    return this.#network?.netnsPath;
  }
  get runtime(): ContainerRuntime | undefined {
    return this.#runtime;
  }
  slot(name: string): Slot | undefined {
    return this.#slots.get(name);
  }

  /** The latest object from the watch; a deletionTimestamp starts graceful termination. */
  update(pod: Pod): void {
    this.#pod = pod;
    if (pod.metadata?.deletionTimestamp && !this.#terminating) {
      this.#terminating = true;
      this.#stop();
    }
  }

  /** The object is gone (force deletion): stop everything now, write nothing. */
  vanish(): void {
    this.#gone = true;
    this.#terminating = true;
    this.#stop();
  }

  async #run(): Promise<void> {
    // Status writes are serialised (#publish), so the start need not wait for this one.
    void this.#timer.time('status-accepted', () => this.#publish());
    const work = this.#runContainers();
    await Promise.race([work, this.#stopSignal]);
    if (!this.#terminating) {
      // Every container is done for good (restartPolicy): the sandbox goes, the object stays.
      await this.#ctx.releasePod(this.uid);
      this.#network = undefined;
      await this.#publish();
    }
    await this.#stopSignal;
    await this.#terminate(work);
  }

  async #runContainers(): Promise<void> {
    try {
      const t = this.#timer;
      this.#runtime = await t.time('runtime-class', () => this.#ctx.runtimeFor(this.#pod));
      const meta = this.#pod.metadata ?? {};
      // The network and the volumes (API reads, token requests, files) do not depend on each
      // other: both run at once, and both settle before a failure is reported, so nothing is
      // still being set up when the pod is released.
      const [network, volumes] = await settleAll([
        t.time('network', () =>
          this.#ctx.network.setUp({
            namespace: meta.namespace ?? 'default',
            name: meta.name ?? '',
            uid: this.uid,
            labels: meta.labels ?? {},
            hostname: this.#pod.spec?.hostname ?? meta.name ?? '',
          }),
        ),
        t.time('volumes', () =>
          prepareVolumes(this.#pod, this.#ctx.objects, {
            podDir: this.#podDir,
            claimsDir: this.#ctx.claimsDir,
            allowHostPath: this.#ctx.allowHostPath,
          }),
        ),
      ]);
      const net = (this.#network = network);
      void t.time('status-sandbox', () => this.#publish());
      const files = await t.time('pod-files', () => writePodFiles(this.#podDir, this.#pod, net));
      const mountsFor = (c: Container) => [
        ...volumeMounts(c.volumeMounts, volumes, c.name),
        ...files,
      ];
      if (await this.#runInit(mountsFor)) {
        await Promise.all(
          (this.#pod.spec?.containers ?? []).map((c) => this.#supervise(c, mountsFor, false)),
        );
      }
    } catch (e) {
      // Sandbox, runtime class or volume failure: containers wait with the reason.
      for (const s of this.#slots.values())
        if (s.record.state.kind === 'waiting')
          s.record.state = {
            kind: 'waiting',
            reason: 'CreateContainerConfigError',
            message: errorMessage(e),
          };
      this.#ctx.log.warn({ pod: this.#key, err: errorMessage(e) }, 'pod cannot start');
      await this.#publish();
    }
  }

  get #podDir(): string {
    return join(this.#ctx.podsDir, this.uid);
  }

  async #runInit(mountsFor: (c: Container) => ReturnType<typeof volumeMounts>): Promise<boolean> {
    for (const c of this.#pod.spec?.initContainers ?? []) {
      const ok = await this.#supervise(c, mountsFor, true);
      if (!ok) return false;
    }
    return !this.#terminating;
  }

  /** Runs container `c` until it is done under the restart policy; true when it succeeded. */
  async #supervise(
    c: Container,
    mountsFor: (c: Container) => ReturnType<typeof volumeMounts>,
    init: boolean,
  ): Promise<boolean> {
    const slot = this.#slots.get(c.name) as Slot;
    const policy = this.#pod.spec?.restartPolicy ?? 'Always';
    let failures = 0;
    while (!this.#terminating) {
      const image = await this.#timer.time('image', () => this.#pull(c, slot));
      if (!image) return false;
      let exit;
      try {
        exit = await this.#runOnce(c, slot, image, mountsFor(c));
      } catch (e) {
        const reason = isKubeletError(e, 'InvalidArgument')
          ? 'CreateContainerConfigError'
          : 'CreateContainerError';
        slot.record.state = { kind: 'waiting', reason, message: errorMessage(e) };
        await this.#publish();
        if (!(await this.#sleep(restartBackoffMs(++failures, this.#ctx.backoffBaseMs))))
          return false;
        continue;
      }
      const restart = init
        ? exit.exitCode !== 0 && policy !== 'Never'
        : shouldRestart(policy, exit.exitCode);
      if (this.#terminating || !restart) return exit.exitCode === 0;
      failures++;
      const delay = restartBackoffMs(failures, this.#ctx.backoffBaseMs);
      const p = this.#pod.metadata ?? {};
      slot.record.lastTerminated =
        slot.record.state.kind === 'terminated'
          ? { ...slot.record.state }
          : slot.record.lastTerminated;
      slot.record.state = {
        kind: 'waiting',
        reason: 'CrashLoopBackOff',
        message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${p.name}_${p.namespace}(${this.uid})`,
      };
      slot.record.restartCount++;
      await this.#publish();
      if (!(await this.#sleep(delay))) return false;
    }
    return false;
  }

  async #pull(c: Container, slot: Slot): Promise<ImageRecord | undefined> {
    let attempts = 0;
    while (!this.#terminating) {
      try {
        const { record } = await this.#ctx.images.ensure(
          c.image ?? '',
          c.imagePullPolicy as 'Always' | 'IfNotPresent' | 'Never' | undefined,
        );
        slot.record.imageID = record.imageId;
        slot.record.image = record.name;
        return record;
      } catch (e) {
        const code = isKubeletError(e) ? e.code : 'ImagePull';
        const reason =
          code === 'InvalidImageName'
            ? 'InvalidImageName'
            : code === 'ImageNotPresent'
              ? 'ErrImageNeverPull'
              : 'ErrImagePull';
        slot.record.state = { kind: 'waiting', reason, message: errorMessage(e) };
        await this.#publish();
        if (reason === 'InvalidImageName') return undefined;
        const delay = restartBackoffMs(++attempts, this.#ctx.backoffBaseMs);
        if (reason === 'ErrImagePull') {
          // The first failure shows ErrImagePull; the wait that follows shows ImagePullBackOff.
          if (!(await this.#sleep(Math.min(delay, 1000)))) return undefined;
          slot.record.state = {
            kind: 'waiting',
            reason: 'ImagePullBackOff',
            message: `Back-off pulling image "${c.image}"`,
          };
          await this.#publish();
        }
        if (!(await this.#sleep(delay))) return undefined;
      }
    }
    return undefined;
  }

  async #runOnce(
    c: Container,
    slot: Slot,
    image: ImageRecord,
    mounts: ReturnType<typeof volumeMounts>,
  ) {
    const runtime = this.#runtime as ContainerRuntime;
    const pod = this.#pod;
    const meta = pod.metadata ?? {};
    const ips = { podIP: this.#network?.ips[0] ?? '', hostIP: this.#ctx.nodeIP };
    const t = this.#timer;
    const env = await t.time('env', () => resolveEnv(pod, c, this.#ctx.objects, ips));
    const imageRootfs = await t.time('image-rootfs', () => this.#ctx.images.store.rootfs(image));
    const n = slot.record.restartCount;
    const cgroupsPath = `/${this.#ctx.cgroupParent}/pod${this.uid}/${c.name}-${n}`;
    const logPath = criLogPath(
      this.#ctx.logsDir,
      { namespace: meta.namespace ?? '', name: meta.name ?? '', uid: this.uid },
      c.name,
      n,
    );
    const instance = new ContainerInstance({
      runtime,
      dir: join(this.#podDir, 'containers', `${c.name}-${n}`),
      imageRootfs,
      logPath,
      cgroupsPath,
      stdin: c.stdin === true,
      timer: t,
      config: (rootfs, terminationLog) =>
        buildOciSpec({
          pod,
          container: c,
          image: image.config,
          rootfs,
          netnsPath: this.#network?.netnsPath ?? '',
          cgroupsPath,
          hostname: pod.spec?.hostname ?? meta.name ?? '',
          env,
          mounts: [
            ...mounts,
            {
              destination: c.terminationMessagePath ?? '/dev/termination-log',
              source: terminationLog,
              readOnly: false,
            },
          ],
          extraReadOnlyMounts: this.#ctx.extraReadOnlyMounts,
          pidsLimit: runtime.hostPidsLimit(this.#ctx.pidsLimit),
          nodeMemoryBytes: this.#ctx.nodeMemoryBytes,
        }),
    });
    const init = this.#initNames.includes(c.name);
    if (!init) checkProbes(c);
    slot.instance = instance;
    // Termination's first sweep may have run before this instance existed: it starts stopped.
    if (this.#terminating) void instance.stop(0);
    slot.logs[n] = logPath;
    await instance.start();
    const startedAt = new Date().toISOString();
    const prober = init ? undefined : this.#prober(c, slot, instance);
    slot.record.containerID = instance.containerID;
    slot.record.state = { kind: 'running', startedAt };
    slot.record.started = prober?.flags.started ?? true;
    slot.record.ready = prober?.flags.ready ?? false;
    await t.time('status-running', () => this.#publish());
    prober?.start();
    this.#startDaemon(c, instance);
    const exit = await instance.wait();
    prober?.stop();
    slot.record.ready = false;
    slot.record.started = false;
    slot.record.state = {
      kind: 'terminated',
      exitCode: exit.exitCode,
      reason: terminatedReason(exit.exitCode, exit.oomKilled),
      ...(exit.message ? { message: exit.message } : {}),
      startedAt,
      finishedAt: exit.finishedAt,
      containerID: instance.containerID,
    };
    this.#ctx.log.info(
      { pod: this.#key, container: c.name, exitCode: exit.exitCode, oomKilled: exit.oomKilled },
      'container exited',
    );
    await this.#publish();
    return exit;
  }

  /** Probes for one instance: flag changes are published, a startup/liveness failure kills it. */
  #prober(c: Container, slot: Slot, instance: ContainerInstance): ContainerProber {
    const runtime = this.#runtime as ContainerRuntime;
    return new ContainerProber(
      c,
      {
        exec: (argv) => runtime.execCommand(instance.id, argv, { tty: false }),
        podIP: this.#network?.ips[0] ?? '',
        netnsPath: this.#network?.netnsPath ?? '',
        ports: c.ports ?? [],
      },
      {
        flags: (f) => {
          slot.record.started = f.started;
          slot.record.ready = f.ready;
          void this.#publish();
        },
        unhealthy: (kind, message) => {
          this.#ctx.log.warn(
            { pod: this.#key, container: c.name, probe: kind, reason: message },
            `container ${c.name} failed ${kind} probe, will be restarted`,
          );
          const probe = kind === 'startup' ? c.startupProbe : c.livenessProbe;
          const grace =
            probe?.terminationGracePeriodSeconds ??
            this.#pod.spec?.terminationGracePeriodSeconds ??
            30;
          void instance.stop(grace * 1000);
        },
      },
    );
  }

  /** The node's in-sandbox daemon, in the first app container only. */
  #startDaemon(c: Container, instance: ContainerInstance): void {
    const daemon = this.#ctx.podDaemon;
    if (!daemon || c.name !== this.#pod.spec?.containers?.[0]?.name || !instance.process) return;
    const argv = daemon.argv(this.#pod, c);
    if (!argv) return;
    superviseDaemon({
      runtime: this.#runtime as ContainerRuntime,
      id: instance.id,
      argv,
      exited: instance.process.exited,
      log: this.#ctx.log,
      key: `${this.#key}/${c.name}`,
    });
  }

  /** Sleeps, ending early (false) when termination starts. */
  async #sleep(ms: number): Promise<boolean> {
    let t: NodeJS.Timeout | undefined;
    const slept = await Promise.race([
      new Promise<boolean>((r) => (t = setTimeout(() => r(true), ms))),
      this.#stopSignal.then(() => false),
    ]);
    clearTimeout(t);
    return slept && !this.#terminating;
  }

  async #terminate(work: Promise<void>): Promise<void> {
    const graceSeconds = this.#gone
      ? 0
      : (this.#pod.metadata?.deletionGracePeriodSeconds ??
        this.#pod.spec?.terminationGracePeriodSeconds ??
        30);
    const graceMs = Math.max(this.#gone ? 0 : 2000, graceSeconds * 1000);
    await Promise.all([...this.#slots.values()].map((s) => s.instance?.stop(graceMs)));
    await work; // supervisors see #terminating and return; one may have started an instance
    await Promise.all([...this.#slots.values()].map((s) => s.instance?.stop(0)));
    await this.#ctx.releasePod(this.uid);
    this.#network = undefined;
    if (this.#gone) return;
    await this.#publish(true);
    await this.#ctx.deletePod(this.#pod);
  }

  /** Writes the computed status when it changed; serialised, and never after the object is gone. */
  #publish(terminal = false): Promise<void> {
    const run = this.#publishing.then(async () => {
      if (this.#gone) return;
      const all = [...this.#slots.values()].map((s) => s.record);
      const status = computePodStatus({
        pod: this.#pod,
        init: all.filter((r) => this.#initNames.includes(r.name)),
        containers: all.filter((r) => !this.#initNames.includes(r.name)),
        sandboxReady: this.#network !== undefined,
        terminal,
        hostIP: this.#ctx.nodeIP,
        podIPs: this.#network?.ips ?? [],
        startTime: this.#startTime,
        now: new Date().toISOString(),
      });
      const key = JSON.stringify({
        ...status,
        conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: undefined })),
      });
      if (key === this.#published) return;
      const written = await this.#ctx.writeStatus(this.#pod, status);
      if (written) {
        this.#published = key;
        this.#pod = written;
      }
    });
    this.#publishing = run.catch((e: unknown) =>
      this.#ctx.log.warn({ pod: this.#key, err: errorMessage(e) }, 'status write failed'),
    );
    return this.#publishing;
  }
}

/** Like Promise.all, but waits for every promise to settle before rejecting with the first error. */
async function settleAll<T extends readonly unknown[]>(
  ps: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const settled = await Promise.allSettled(ps);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Refuses a probe without exactly one supported handler, naming the field. */
function checkProbes(c: Container): void {
  for (const f of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
    const p = c[f];
    if (!p) continue;
    try {
      probeHandler(p, `containers[${c.name}].${f}`);
    } catch (e) {
      throw new KubeletError('InvalidArgument', errorMessage(e));
    }
    if (f !== 'readinessProbe' && (p.successThreshold ?? 1) !== 1)
      throw new KubeletError(
        'InvalidArgument',
        `containers[${c.name}].${f}.successThreshold: must be 1 for ${f}; remove it or set 1`,
      );
  }
}

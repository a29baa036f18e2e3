// One pod on this node, from acceptance to the final DELETE (kubelet-and-oci §1–2): sandbox,
// images, init containers in order, regular containers under the restart policy, graceful
// termination. The steps live beside it: pod-sandbox.ts (network, volumes, files),
// image-pull.ts, container-launch.ts, container-probes.ts, pod-status-writer.ts.
import { formatTime, type Container, type Pod } from '@agent-sandbox/kube-types';
import { join } from 'node:path';
import { errorMessage, isKubeletError } from '../errors.ts';
import type { ImageRecord } from '../images/image-store.ts';
import {
  initialRecord,
  restartBackoffMs,
  sandboxFailure,
  sandboxRetryMs,
  shouldRestart,
  terminatedReason,
  waitingToCreate,
  type ContainerRecord,
} from '../lifecycle/container-record.ts';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import type { ContainerProber } from '../probes/container-prober.ts';
import type { ContainerRuntime } from '../runtime/container-runtime.ts';
import type { ContainerInstance, InstanceExit } from './container-instance.ts';
import {
  daemonExecFor,
  instanceDir,
  launchContainer,
  type ContainerMounts,
} from './container-launch.ts';
import { checkProbes, instanceProbeTarget, instanceProber } from './container-probes.ts';
import { presentUnlessAlways, pullImage } from './image-pull.ts';
import type { NodeContext } from './node-context.ts';
import { NODE_EXEC_SOCKET } from '../node-exec/exec-socket.ts';
import { podDaemonRun, type PodDaemonRun } from './daemon-gate.ts';
import { PodEvents } from './pod-events.ts';
import { podPhaseTimer, type PodPhaseTimer } from './pod-phases.ts';
import { preparePodSandbox, type PodSandbox } from './pod-sandbox.ts';
import { RootfsStage } from './rootfs-stage.ts';
import { settleAll } from './settle-all.ts';
import { EARLY_STATUS_MS, PodStatusWriter } from './pod-status-writer.ts';

type Slot = { record: ContainerRecord; instance?: ContainerInstance; logs: string[] };
type Launched = Awaited<ReturnType<typeof launchContainer>>;
/** What watches an app container while it runs; `ready` folds the daemon's gate into the probes'. */
type Watchers = {
  prober: ContainerProber;
  daemon: PodDaemonRun | undefined;
  ready: (probes: boolean) => boolean;
};

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
  readonly #status: PodStatusWriter;
  /** Roots mounted ahead for the first run of the first containers, by container name. */
  readonly #staged = new Map<string, RootfsStage>();
  /** First runs created while the volumes were filled, held at their start gate, by name. */
  readonly #early = new Map<string, Promise<Launched | undefined>>();
  readonly #timer: PodPhaseTimer;
  readonly #events: PodEvents;
  /** Ends this Pod's start for the node (NodeContext.startBegun): a container runs, or it failed. */
  #startSettled: () => void = () => undefined;
  readonly done: Promise<void>;

  constructor(ctx: NodeContext, pod: Pod) {
    this.#ctx = ctx;
    this.#pod = pod;
    this.uid = pod.metadata?.uid ?? '';
    this.#status = new PodStatusWriter(
      ctx,
      {
        pod: () => this.#pod,
        records: () => {
          const all = [...this.#slots.values()].map((s) => s.record);
          return {
            init: all.filter((r) => this.#initNames.includes(r.name)),
            containers: all.filter((r) => !this.#initNames.includes(r.name)),
          };
        },
        network: () => this.#network,
        gone: () => this.#gone,
        written: (p) => (this.#pod = p),
      },
      pod.status?.startTime ?? formatTime(Date.now()),
      () => this.#key,
    );
    this.#stopSignal = new Promise((r) => (this.#stop = r));
    this.#events = new PodEvents(ctx.events, ctx.nodeName);
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
    const before = this.#pod.metadata?.deletionGracePeriodSeconds;
    this.#pod = pod;
    if (!pod.metadata?.deletionTimestamp) return;
    if (!this.#terminating) {
      this.#terminating = true;
      this.#stop();
      return;
    }
    // A later DELETE shortened the grace: stops under way end sooner (never below the floor).
    const grace = pod.metadata.deletionGracePeriodSeconds;
    if (grace !== undefined && before !== undefined && grace < before)
      for (const s of this.#slots.values()) void s.instance?.stop(graceMs(grace));
  }

  /** The object is gone (force deletion): stop everything now, write nothing. */
  vanish(): void {
    this.#gone = true;
    this.#terminating = true;
    this.#stop();
  }

  async #run(): Promise<void> {
    // Accepted (Pending, containers waiting): written within EARLY_STATUS_MS, or folded into the
    // next status asked before that (pod-status-writer.ts); the start never waits for it.
    this.#status.publishWithin(EARLY_STATUS_MS);
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
      const mountsFor = await this.#setUpSandbox();
      if (!mountsFor) return;
      this.#status.publishWithin(EARLY_STATUS_MS); // PodReadyToStartContainers, as the accepted one
      if (await this.#runInit(mountsFor)) {
        await Promise.all(
          (this.#pod.spec?.containers ?? []).map((c) => this.#supervise(c, mountsFor, false)),
        );
      }
    } finally {
      this.#startSettled();
      // A root still being mounted must be done before the pod's directory is removed; a
      // container created ahead that never started goes without running.
      await Promise.all([...this.#staged.values()].map((s) => s.settled()));
      await this.#dropEarly();
    }
  }

  /**
   * The sandbox, retried as the kubelet retries RunPodSandbox (sandboxRetryMs back-off) until it
   * is made or termination starts (then undefined). The RuntimeClass read (an API round trip)
   * and the sandbox do not depend on each other: both at once, both settled before a failure.
   */
  async #setUpSandbox(): Promise<((c: Container) => ContainerMounts) | undefined> {
    for (let failures = 0; !this.#terminating;) {
      this.#startSettled = this.#ctx.startBegun();
      this.#stageRoots();
      try {
        const t = this.#timer;
        const runtimeClass = t.time('runtime-class', () => this.#ctx.runtimeFor(this.#pod));
        const early =
          this.#ctx.earlyCreate(this.#pod) &&
          failures === 0 &&
          !this.#pod.spec?.initContainers?.length;
        // The daemon's exec socket (ADR 0037) is opened beside the sandbox, not in the first
        // container's launch, where its directory, listen and chmod were 6–17 ms of loop turns
        // between the set-up and `runc run` (bench:node, load 4).
        const execSocket = runtimeClass.then((rt) =>
          daemonExecFor(this.#ctx, this.#pod, rt)
            ? this.#ctx.nodeExec.open(this.uid, this.#podDir)
            : undefined,
        );
        const [runtime, , { network, mountsFor }] = await settleAll([
          runtimeClass,
          execSocket,
          preparePodSandbox(this.#ctx, {
            pod: this.#pod,
            podDir: this.#podDir,
            timer: t,
            ...(early ? { onMounts: (sb: PodSandbox) => this.#createEarly(runtimeClass, sb) } : {}),
          }),
        ]);
        this.#runtime = runtime;
        this.#network = network;
        if (failures > 0) this.#waitToCreate(); // the last failure's message no longer holds
        return mountsFor;
      } catch (e) {
        await this.#sandboxFailed(e);
      }
      const delay = sandboxRetryMs(++failures, this.#ctx.sandboxRetryBaseMs);
      if (!(await this.#sleep(delay))) return undefined;
    }
    return undefined;
  }

  /**
   * A failed sandbox attempt: what it made goes (network, staged roots, the pod's directory), the
   * containers keep waiting to be created (with the cause), and a FailedCreatePodSandBox warning
   * is written or counted.
   */
  async #sandboxFailed(e: unknown): Promise<void> {
    const message = errorMessage(e);
    this.#waitToCreate(message);
    this.#ctx.log.warn({ pod: this.#key, err: message }, 'pod cannot start, will retry');
    this.#startSettled();
    await Promise.all([...this.#staged.values()].map((s) => s.settled()));
    this.#staged.clear();
    await this.#dropEarly();
    const released = this.#ctx.releasePod(this.uid).catch((err: unknown) => {
      this.#ctx.log.warn({ pod: this.#key, err: errorMessage(err) }, 'undoing a sandbox failed');
    });
    const event = this.#events
      .warn(this.#pod, 'FailedCreatePodSandBox', sandboxFailure(message))
      .then((err) => {
        if (err) this.#ctx.log.warn({ pod: this.#key, err: err.message }, 'event write failed');
      });
    await Promise.all([released, event, this.#publish()]);
  }

  /** The waiting containers wait to be created (lifecycle waitingToCreate), for `cause` if any. */
  #waitToCreate(cause?: string): void {
    const hasInit = this.#initNames.length > 0;
    for (const s of this.#slots.values())
      if (s.record.state.kind === 'waiting') {
        const app = !this.#initNames.includes(s.record.name);
        s.record.state = waitingToCreate(hasInit && app, cause);
      }
  }

  /** Mounts the roots of the containers that run first (the first init container, else every app container). */
  #stageRoots(): void {
    const spec = this.#pod.spec;
    const first = spec?.initContainers?.length
      ? spec.initContainers.slice(0, 1)
      : (spec?.containers ?? []);
    for (const c of first) {
      const n = this.#slots.get(c.name)?.record.restartCount ?? 0;
      this.#staged.set(
        c.name,
        new RootfsStage(
          this.#ctx.images,
          c,
          instanceDir(this.#podDir, c.name, n),
          this.#ctx.rootPoolFor(this.#pod),
        ),
      );
    }
  }

  /**
   * Creates the first run of each app container as soon as the network, the pod's files and the
   * volumes' directories are there, held at its start gate while the volumes are filled: runc's
   * namespaces, cgroup and mounts then overlap the volumes' API reads. Only where the runtime has
   * a gate, the image is present (never pulled here) and no mount names a subPath (which exists
   * only once the volume is filled); anything else, or any failure, leaves the usual start.
   */
  #createEarly(runtimeClass: Promise<ContainerRuntime>, sandbox: PodSandbox): void {
    for (const c of this.#pod.spec?.containers ?? []) {
      const slot = this.#slots.get(c.name);
      if (slot?.record.restartCount !== 0) continue;
      if ((c.volumeMounts ?? []).some((m) => m.subPath || m.subPathExpr)) continue;
      const launched = (async () => {
        const runtime = await runtimeClass;
        const image = await presentUnlessAlways(c, this.#staged.get(c.name)?.image);
        if (!runtime.startGate || !image || this.#terminating) return undefined;
        const l = await launchContainer(this.#ctx, {
          pod: this.#pod,
          container: c,
          image,
          runtime,
          network: sandbox.network,
          mounts: sandbox.mountsFor(c),
          restartCount: 0,
          podDir: this.#podDir,
          timer: this.#timer,
          staged: this.#takeStaged(c.name),
          gated: true,
        });
        try {
          await l.instance.create();
        } catch (e) {
          // The usual start prepares it again and reports what fails.
          this.#ctx.log.warn({ pod: this.#key, err: errorMessage(e) }, 'early create failed');
          await l.instance.stop(0);
          await l.instance.cleanup().catch(() => undefined);
          return undefined;
        }
        return l;
      })().catch(() => undefined);
      this.#early.set(c.name, launched);
    }
  }

  /** The container's first run created ahead, if any (taken once). */
  async #takeEarly(name: string, n: number): Promise<Launched | undefined> {
    const early = this.#early.get(name);
    this.#early.delete(name);
    return n === 0 ? early : undefined;
  }

  /** Stops and removes the containers created ahead that no run took; their process never ran. */
  async #dropEarly(): Promise<void> {
    const left = [...this.#early.values()];
    this.#early.clear();
    await Promise.all(
      left.map(async (p) => {
        const l = await p;
        if (!l) return;
        await l.instance.stop(0);
        await l.instance.wait();
      }),
    );
  }

  get #podDir(): string {
    return join(this.#ctx.podsDir, this.uid);
  }

  async #runInit(mountsFor: (c: Container) => ContainerMounts): Promise<boolean> {
    for (const c of this.#pod.spec?.initContainers ?? []) {
      const ok = await this.#supervise(c, mountsFor, true);
      if (!ok) return false;
    }
    return !this.#terminating;
  }

  /** Runs container `c` until it is done under the restart policy; true when it succeeded. */
  async #supervise(
    c: Container,
    mountsFor: (c: Container) => ContainerMounts,
    init: boolean,
  ): Promise<boolean> {
    const slot = this.#slots.get(c.name) as Slot;
    const policy = this.#pod.spec?.restartPolicy ?? 'Always';
    let failures = 0;
    while (!this.#terminating) {
      const image = await this.#timer.time('image', () => this.#pull(c, slot));
      if (!image) {
        this.#startSettled();
        return false;
      }
      let exit;
      try {
        exit = await this.#runOnce(c, slot, image, mountsFor(c));
      } catch (e) {
        this.#startSettled();
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

  #pull(c: Container, slot: Slot): Promise<ImageRecord | undefined> {
    return pullImage(this.#ctx.images, c, slot.record, {
      terminating: () => this.#terminating,
      sleep: (ms) => this.#sleep(ms),
      publish: () => this.#publish(),
      backoffBaseMs: this.#ctx.backoffBaseMs,
      present: this.#staged.get(c.name)?.image,
    });
  }

  /** One run of container `c`: launched, started, watched while Running, its exit recorded. */
  async #runOnce(c: Container, slot: Slot, image: ImageRecord, mounts: ContainerMounts) {
    const init = this.#initNames.includes(c.name);
    if (!init) checkProbes(c);
    const n = slot.record.restartCount;
    const instance = await this.#launch(c, slot, image, mounts);
    await instance.start();
    const startedAt = formatTime(Date.now());
    const watch = init ? undefined : this.#watchers(c, slot, instance);
    await this.#running(slot, instance, startedAt, watch);
    this.#startSettled();
    watch?.prober.start();
    // After the Running write's answer, not beside it: the daemon's spawn and runtime exec on
    // the shared loop and two cores made that write take 20–45 ms instead of 6–11 (bench:node
    // --ab-daemon, 2026-12-03 14:40, bench/README.md), more than the daemon would gain.
    watch?.daemon?.start();
    if (watch?.daemon && n === 0)
      void this.#ctx.nodeExec
        .get(this.uid)
        ?.firstConnection.then(() => this.#timer.mark('daemon-registered'));
    const exit = await instance.wait();
    watch?.prober.stop();
    watch?.daemon?.gate?.stop();
    await this.#exited(c, slot, instance, exit, startedAt);
    return exit;
  }

  /** The run's instance: the one created ahead for a first run, else launched now; not started. */
  async #launch(
    c: Container,
    slot: Slot,
    image: ImageRecord,
    mounts: ContainerMounts,
  ): Promise<ContainerInstance> {
    const n = slot.record.restartCount;
    const early = await this.#takeEarly(c.name, n);
    const { instance, logPath } =
      early ??
      (await launchContainer(this.#ctx, {
        pod: this.#pod,
        container: c,
        image,
        runtime: this.#runtime as ContainerRuntime,
        network: this.#network,
        mounts,
        restartCount: n,
        podDir: this.#podDir,
        timer: this.#timer,
        staged: this.#takeStaged(c.name),
      }));
    slot.instance = instance;
    // Termination's first sweep may have run before this instance existed: it starts stopped.
    if (this.#terminating) void instance.stop(0);
    slot.logs[n] = logPath;
    return instance;
  }

  /** An app container's prober and the node's daemon for it (if any), neither started yet. */
  #watchers(c: Container, slot: Slot, instance: ContainerInstance): Watchers {
    // Ready needs the probes' verdict and, with a gated daemon, the daemon listening.
    const ready = (probes: boolean): boolean => probes && (daemon?.gate?.listening ?? true);
    const prober = this.#prober(c, slot, instance, ready);
    const daemon = podDaemonRun({
      daemon: this.#ctx.podDaemon,
      pod: this.#pod,
      container: c,
      instance,
      runtime: this.#runtime as ContainerRuntime,
      target: instanceProbeTarget({
        container: c,
        runtime: this.#runtime as ContainerRuntime,
        instance,
        network: this.#network,
      }),
      log: this.#ctx.log,
      key: `${this.#key}/${c.name}`,
      ...(this.#ctx.nodeExec.get(this.uid) ? { nodeExecSocket: NODE_EXEC_SOCKET } : {}),
      onGate: () => {
        slot.record.ready = ready(prober.flags.ready);
        void this.#publish();
      },
    });
    return { prober, daemon, ready };
  }

  /** Records the started instance as Running (an init container is never Ready) and writes it. */
  async #running(
    slot: Slot,
    instance: ContainerInstance,
    startedAt: string,
    watch: Watchers | undefined,
  ): Promise<void> {
    slot.record.containerID = instance.containerID;
    slot.record.state = { kind: 'running', startedAt };
    slot.record.started = watch?.prober.flags.started ?? true;
    slot.record.ready = watch ? watch.ready(watch.prober.flags.ready) : false;
    await this.#timer.time('status-running', () => this.#publish());
  }

  /** Records the run's exit (the container's terminated state) and writes it. */
  async #exited(
    c: Container,
    slot: Slot,
    instance: ContainerInstance,
    exit: InstanceExit,
    startedAt: string,
  ): Promise<void> {
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
  }

  #takeStaged(name: string): RootfsStage | undefined {
    const staged = this.#staged.get(name);
    this.#staged.delete(name);
    return staged;
  }

  /** Probes for one instance: flag changes are published, a startup/liveness failure kills it. */
  #prober(
    c: Container,
    slot: Slot,
    instance: ContainerInstance,
    ready: (probes: boolean) => boolean,
  ) {
    return instanceProber({
      pod: this.#pod,
      container: c,
      runtime: this.#runtime as ContainerRuntime,
      instance,
      network: this.#network,
      flags: (f) => {
        slot.record.started = f.started;
        slot.record.ready = ready(f.ready);
        void this.#publish();
      },
      unhealthy: (kind, message) =>
        this.#ctx.log.warn(
          { pod: this.#key, container: c.name, probe: kind, reason: message },
          `container ${c.name} failed ${kind} probe, will be restarted`,
        ),
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
    const budget = this.#gone ? 0 : graceMs(graceSeconds);
    await Promise.all([...this.#slots.values()].map((s) => s.instance?.stop(budget)));
    await work; // supervisors see #terminating and return; one may have started an instance
    await Promise.all([...this.#slots.values()].map((s) => s.instance?.stop(0)));
    await this.#ctx.releasePod(this.uid);
    this.#network = undefined;
    if (this.#gone) return;
    await this.#publish(true);
    await this.#ctx.deletePod(this.#pod);
  }

  /** Writes the computed status when it changed (pod-status-writer.ts). */
  #publish(terminal = false): Promise<void> {
    return this.#status.publish(terminal);
  }
}

/** A termination's budget: the grace, floored at 2 s as the kubelet floors it (§2.2). */
function graceMs(seconds: number): number {
  return Math.max(2000, seconds * 1000);
}

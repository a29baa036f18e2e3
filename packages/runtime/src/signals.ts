// controller-runtime's SetupSignalHandler, for entry points only: the first SIGINT or SIGTERM
// aborts the returned signal (graceful shutdown); a second one exits at once with code 1.
export function setupSignalHandler(proc: NodeJS.Process = process): AbortSignal {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) proc.exit(1);
    ac.abort(new Error(`received ${sig}`));
  };
  proc.on('SIGINT', onSignal);
  proc.on('SIGTERM', onSignal);
  return ac.signal;
}

// The fuzzer's embedded API server in a process of its own, so that its RSS is the server's and
// not the fuzzer's: startTestApiServer with our CRDs (in-memory store, plain HTTP, no auth), as
// the suite ran it in-process before. Prints one JSON line, {"kubeconfig", "pid"}, once serving,
// and stops on SIGTERM or when its stdin closes (it never outlives the run).
import { readOurCrds, startTestApiServer } from '@agent-sandbox/apiserver/testing';

const server = await startTestApiServer({ crds: readOurCrds() });
const stop = (): void => void server.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.stdin.once('close', stop);
process.stdin.resume();
process.stdout.write(
  `${JSON.stringify({ kubeconfig: server.kubeconfigPath, pid: process.pid })}\n`,
);

# Upstream's Python SDK (k8s-agent-sandbox from PyPI, unchanged) against a real `agent-sandbox up`:
# create a claim from a warm pool, run a command, write/read/list/exists files, terminate — in the
# connection mode named by MODE (direct: the router URL; tunnel: the SDK's default, kubectl
# port-forward to svc/sandbox-router-svc; in-cluster: the Pod IP, no router). With SUSPEND=1 the
# Sandbox is then suspended and one more command must wake it. One JSON line out.
import json
import os
import time

from kubernetes import client, config
from k8s_agent_sandbox import SandboxClient
from k8s_agent_sandbox.models import (
    SandboxDirectConnectionConfig,
    SandboxInClusterConnectionConfig,
)

config.load_kube_config(config_file=os.environ["KUBECONFIG"])
mode = os.environ["MODE"]
connection = {
    "direct": lambda: SandboxDirectConnectionConfig(api_url=os.environ["ROUTER_URL"]),
    "tunnel": lambda: None,
    "in-cluster": lambda: SandboxInClusterConnectionConfig(),
}[mode]()
sdk = SandboxClient(connection_config=connection, api_client=client.ApiClient())
sandbox = sdk.create_sandbox(os.environ["WARMPOOL"], namespace="default", sandbox_ready_timeout=120)
try:
    run = sandbox.commands.run("sh -c 'echo hello-from-" + mode + "; echo oops >&2; exit 3'")
    sandbox.files.write("sdk/nested/file.txt", b"sdk-bytes")
    read = sandbox.files.read("sdk/nested/file.txt")
    listing = sandbox.files.list("sdk/nested")
    exists = sandbox.files.exists("sdk/nested/file.txt")
    missing = sandbox.files.exists("sdk/none.txt")
    seen = sandbox.commands.run("cat /workspace/sdk/nested/file.txt")
    woke = None
    if os.environ.get("SUSPEND") == "1":
        # Suspend the Sandbox and wait for its Pod to go; the next command wakes it (router).
        sandboxes = client.CustomObjectsApi()
        sandboxes.patch_namespaced_custom_object(
            "agents.x-k8s.io", "v1beta1", "default", "sandboxes", sandbox.sandbox_id,
            {"spec": {"operatingMode": "Suspended"}},
        )
        for _ in range(300):
            pods = client.CoreV1Api().list_namespaced_pod(
                "default", label_selector="agents.x-k8s.io/sandbox-name-hash"
            ).items
            if not any(p.metadata.name == sandbox.get_pod_name() for p in pods):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the suspended Sandbox's Pod did not go")
        woke = sandbox.commands.run("echo woke-up").stdout
    result = {
        "claim": sandbox.claim_name, "sandbox": sandbox.sandbox_id,
        "stdout": run.stdout, "stderr": run.stderr, "exit_code": run.exit_code,
        "read": read.decode(), "list": [[e.name, e.type, e.size] for e in listing],
        "exists": exists, "missing": missing, "seen": seen.stdout, "woke": woke,
    }
finally:
    sandbox.terminate()
print(json.dumps(result))

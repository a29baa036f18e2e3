# Upstream's Python SDK (k8s-agent-sandbox from PyPI, unchanged) against our router and sandboxd:
# attach to a claim, run a command, write/read/list/exists files, terminate. Prints one JSON line.
import json
import os

from kubernetes import client, config
from k8s_agent_sandbox import SandboxClient
from k8s_agent_sandbox.models import SandboxDirectConnectionConfig

config.load_kube_config(config_file=os.environ["KUBECONFIG"])
sdk = SandboxClient(
    connection_config=SandboxDirectConnectionConfig(
        api_url=os.environ["ROUTER_URL"], server_port=int(os.environ["SANDBOX_PORT"])
    ),
    api_client=client.ApiClient(),
)
sandbox = sdk.get_sandbox(os.environ["CLAIM"], namespace="default")
run = sandbox.commands.run("sh -c 'echo hello-from-sdk; echo oops >&2; exit 3'")
sandbox.files.write("sdk/nested/file.txt", b"sdk-bytes")
read = sandbox.files.read("sdk/nested/file.txt")
listing = sandbox.files.list("sdk/nested")
exists = sandbox.files.exists("sdk/nested/file.txt")
missing = sandbox.files.exists("sdk/none.txt")
pod_ip = sandbox.get_pod_ip()
sandbox.terminate()
print(json.dumps({
    "stdout": run.stdout, "stderr": run.stderr, "exit_code": run.exit_code,
    "read": read.decode(), "list": [[e.name, e.type, e.size] for e in listing],
    "exists": exists, "missing": missing, "pod_ip": pod_ip,
}))

"""A Python `kubernetes` client watch from a compacted resourceVersion (issue 4, Must show).

Usage: watch_expired.py KUBECONFIG NAMESPACE RESOURCE_VERSION

The server answers with an in-stream ERROR event (410 Expired); watch.Watch retries once and then
raises ApiException(410). The script then relists and watches from the new resourceVersion, as
an informer would, and prints one JSON document for the test.
"""

import json
import sys

from kubernetes import client, config, watch


def main() -> None:
    kubeconfig, ns, rv = sys.argv[1], sys.argv[2], sys.argv[3]
    core = client.CoreV1Api(config.new_client_from_config(config_file=kubeconfig))
    out = {"events": []}
    try:
        for e in watch.Watch().stream(
            core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=10
        ):
            out["events"].append([e["type"], e["object"].metadata.name])
    except client.exceptions.ApiException as err:
        out["error"] = {"status": err.status, "reason": err.reason}

    listed = core.list_namespaced_config_map(ns)
    out["relisted"] = sorted(c.metadata.name for c in listed.items)
    # Nothing changes after the relist: the watch from its resourceVersion ends at the timeout
    # without an error.
    out["afterRelist"] = [
        [e["type"], e["object"].metadata.name]
        for e in watch.Watch().stream(
            core.list_namespaced_config_map,
            ns,
            resource_version=listed.metadata.resource_version,
            timeout_seconds=1,
        )
    ]
    print(json.dumps(out))


if __name__ == "__main__":
    main()

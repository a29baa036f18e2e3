"""The upstream Python `kubernetes` client against the embedded API server (issue 4, Must show).

Usage: list_and_watch.py KUBECONFIG NAMESPACE

Lists namespaces, ConfigMaps (whole and in pages) and Sandboxes (CustomObjectsApi), then watches
ConfigMaps and Sandboxes from the listed resourceVersions while a second thread creates, updates
and deletes one of each through the same client. Prints one JSON document for the test.
"""

import json
import sys
import threading

import kubernetes
from kubernetes import client, config, watch

GROUP, VERSION, PLURAL = "agents.x-k8s.io", "v1beta1", "sandboxes"


def main() -> None:
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    api_client = config.new_client_from_config(config_file=kubeconfig)
    core = client.CoreV1Api(api_client)
    custom = client.CustomObjectsApi(api_client)
    out = {"clientVersion": kubernetes.__version__}

    out["namespaces"] = sorted(n.metadata.name for n in core.list_namespace().items)
    cms = core.list_namespaced_config_map(ns)
    out["configmaps"] = sorted(c.metadata.name for c in cms.items)
    out["configmapData"] = {c.metadata.name: c.data for c in cms.items}
    pages, token = [], None
    while True:
        kwargs = {"limit": 1, "_continue": token} if token else {"limit": 1}
        page = core.list_namespaced_config_map(ns, **kwargs)
        pages.append([c.metadata.name for c in page.items])
        token = page.metadata._continue
        if not token:
            break
    out["pages"] = pages
    labelled = core.list_namespaced_config_map(ns, label_selector="journey=python")
    out["labelled"] = sorted(c.metadata.name for c in labelled.items)
    sandboxes = custom.list_namespaced_custom_object(GROUP, VERSION, ns, PLURAL)
    out["sandboxes"] = sorted(s["metadata"]["name"] for s in sandboxes["items"])
    out["sandboxImages"] = {
        s["metadata"]["name"]: s["spec"]["podTemplate"]["spec"]["containers"][0]["image"]
        for s in sandboxes["items"]
    }

    def changes() -> None:
        body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-watched"), data={"v": "1"})
        core.create_namespaced_config_map(ns, body)
        core.patch_namespaced_config_map("py-watched", ns, {"data": {"v": "2"}})
        core.delete_namespaced_config_map("py-watched", ns)
        sandbox = {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "Sandbox",
            "metadata": {"name": "py-sandbox"},
            "spec": {"podTemplate": {"spec": {"containers": [{"name": "agent", "image": "busybox:1.36"}]}}},
        }
        custom.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, sandbox)
        custom.patch_namespaced_custom_object(
            GROUP, VERSION, ns, PLURAL, "py-sandbox", {"metadata": {"labels": {"seen": "yes"}}}
        )
        custom.delete_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "py-sandbox")

    writer = threading.Thread(target=changes)
    writer.start()

    events = []
    w = watch.Watch()
    for e in w.stream(
        core.list_namespaced_config_map,
        ns,
        resource_version=cms.metadata.resource_version,
        timeout_seconds=20,
    ):
        obj = e["object"]
        events.append([e["type"], obj.metadata.name, obj.data])
        if e["type"] == "DELETED" and obj.metadata.name == "py-watched":
            w.stop()
    out["configmapEvents"] = events

    sandbox_events = []
    w = watch.Watch()
    for e in w.stream(
        custom.list_namespaced_custom_object,
        GROUP,
        VERSION,
        ns,
        PLURAL,
        resource_version=sandboxes["metadata"]["resourceVersion"],
        timeout_seconds=20,
    ):
        obj = e["object"]
        sandbox_events.append([e["type"], obj["metadata"]["name"], obj["metadata"].get("labels")])
        if e["type"] == "DELETED" and obj["metadata"]["name"] == "py-sandbox":
            w.stop()
    out["sandboxEvents"] = sandbox_events
    writer.join()
    print(json.dumps(out))


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Builds the pinned control-plane binaries (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) from the Go wrapper modules beside this script into a cache directory
# outside the repository, and prints that bin directory as its last line.
#
# The cache key hashes every input that changes the binaries (the wrapper go.mod/go.sum files,
# this script, `go version`), so a second run with unchanged pins does nothing. See ADR 0004.
#
# Env: AGENT_SANDBOX_CLUSTER_CACHE overrides the cache root
#      (default ${XDG_CACHE_HOME:-$HOME/.cache}/agent-sandbox/cluster).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s_version=v1.36.3 # keep in step with go/kubernetes/go.mod

fail() {
  printf 'cluster build: %s\n' "$*" >&2
  exit 1
}
missing_toolchain() { # exit 3 tells the TypeScript runner "missing toolchain", not "build failed"
  printf 'cluster build: %s\n' "$*" >&2
  exit 3
}

command -v go >/dev/null ||
  missing_toolchain "go is not on PATH; install Go >= 1.26 (the wrapper modules declare go 1.26.0) and retry"
export GOTOOLCHAIN=local # never download another toolchain; the pins were checked on this one
go_version="$(go env GOVERSION)"
case "$go_version" in
  go1.2[6-9]* | go1.[3-9][0-9]*) ;;
  *) missing_toolchain "found $go_version, need Go >= 1.26 (k8s.io/kubernetes $k8s_version declares go 1.26.0); install it and retry" ;;
esac

# `up` issues its certificates with the openssl CLI (node:crypto cannot sign X.509). Debian has it;
# install it on a root machine with apt, else say how.
if ! command -v openssl >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "cluster build: installing openssl with apt-get" >&2
    apt-get install -y --no-install-recommends openssl >&2 ||
      missing_toolchain "apt-get install openssl failed; install openssl and retry"
  else
    missing_toolchain "openssl is not on PATH; install it (Debian: apt-get install openssl) and retry"
  fi
fi

key="$(
  {
    printf '%s\n' "$go_version" "$(go env GOOS GOARCH)"
    cat "$here/build.sh" "$here"/go/*/go.mod "$here"/go/*/go.sum
  } | sha256sum | cut -c1-16
)"
cache_root="${AGENT_SANDBOX_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-sandbox/cluster}"
out="$cache_root/$key"
bins=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

if [ -f "$out/complete" ]; then
  echo "cluster build: up to date ($out/bin)" >&2
  echo "$out/bin"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.build-XXXXXX")"
chmod 755 "$tmp" # mktemp makes it private; the binaries are not secret
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)

# Upstream's release flags (hack/lib/golang.sh): static, trimmed, stripped. Stamp the version the
# way hack/lib/version.sh does; without it /version reports v0.0.0 and kubectl warns about skew.
minor="${k8s_version#v1.}"
minor="${minor%%.*}"
x_flags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  x_flags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  x_flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
export CGO_ENABLED=0

build() { # build <module dir> <tags> <ldflags> <output> <package>...
  local dir="$1" tags="$2" ldflags="$3" output="$4"
  shift 4
  echo "cluster build: $* ($dir)" >&2
  (cd "$here/go/$dir" && go build -mod=readonly -trimpath -tags "$tags" \
    -ldflags "-s -w $ldflags" -o "$output" "$@") ||
    fail "go build in test/cluster/go/$dir failed (see the compiler output above); check disk space and that the Go module proxy is reachable, then rerun: test/cluster/build.sh"
}

build etcd "" "" "$tmp/bin/etcd" go.etcd.io/etcd/server/v3
build kwok "" "-X sigs.k8s.io/kwok/pkg/consts.Version=v0.8.0" "$tmp/bin/kwok" sigs.k8s.io/kwok/cmd/kwok
build kubernetes selinux,notest "$x_flags" "$tmp/bin/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler

for b in "${bins[@]}"; do
  [ -x "$tmp/bin/$b" ] || fail "expected $tmp/bin/$b after the build, it is missing"
done
printf 'key=%s\ngo=%s\nkubernetes=%s\nseconds=%s\n' "$key" "$go_version" "$k8s_version" \
  "$(($(date +%s) - start))" >"$tmp/complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "cluster build: built in $(($(date +%s) - start))s ($out/bin)" >&2
echo "$out/bin"

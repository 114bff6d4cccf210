#!/usr/bin/env bash
# The project's container engine: one rootful `podman system service` that serves the Docker Engine API on a
# unix socket, so ngym's docker provider, upstream's DockerProvider (through the `docker` CLI) and `docker build`
# all reach it with DOCKER_HOST. Usage: scripts/container-engine.sh start|stop|status (docs/sandbox.md,
# "Container engine").
#
# Why the recipe (measured on Debian 12 / podman 4.3.1 / cgroup v1 hybrid, kernel without CAP_SYS_RESOURCE):
# - crun cannot raise RLIMIT_NOFILE/NPROC to podman's defaults without CAP_SYS_RESOURCE, so a private
#   CONTAINERS_CONF sets default_ulimits within the hard limits this process has.
# - crun refuses "hybrid" cgroups (a cgroup2 mount at /sys/fs/cgroup/unified beside the v1 controllers), so the
#   service runs in a private mount namespace (unshare -m) where that mount is unmounted; the host keeps it.
# - The engine keeps its own storage and run state (under $ENGINE_STATE and /var/lib/ngym-engine), and its run
#   state, /run/netns and libpod's tmp dir sit on a tmpfs private to its namespace, so nothing it mounts is seen
#   or left on the host, another podman on the machine does not share its mount bookkeeping, and a stop (or a
#   crash) ends all of it: the next start is a fresh boot for podman.
# - Every process of the engine (service, conmon, podman cleanup) lives in that namespace, which is how `stop`
#   finds them all; the namespace is recorded at start.
set -euo pipefail
# iptables (which netavark runs) and debootstrap live in sbin, which a non-login PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"

SOCKET_PATH="${NGYM_ENGINE_SOCKET:-/run/ngym-engine/podman.sock}"
SOCKET_PATH="${SOCKET_PATH#unix://}"
ENGINE_STATE="$(dirname "$SOCKET_PATH")"
STORAGE_ROOT="${NGYM_ENGINE_STORAGE:-/var/lib/ngym-engine}"
PRIVATE_RUN="$ENGINE_STATE/private"
PID_FILE="$ENGINE_STATE/engine.pid"
NAMESPACE_FILE="$ENGINE_STATE/engine.mntns"
LOG_FILE="$ENGINE_STATE/service.log"
LEASES="$ENGINE_STATE/leases"
STARTED_FOR_LEASES="$ENGINE_STATE/started-for-leases"
LABELS=(nemo-gym.sandbox=1 ngym.sandbox=1)
START_TIMEOUT_SECONDS="${NGYM_ENGINE_START_TIMEOUT:-60}"

fail() {
  echo "container-engine: $*" >&2
  exit 1
}

require_tools() {
  local missing=()
  for tool in podman conmon unshare nsenter setsid curl flock iptables; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  command -v crun >/dev/null 2>&1 || command -v runc >/dev/null 2>&1 || missing+=(crun)
  if [ "${#missing[@]}" -gt 0 ]; then
    fail "missing ${missing[*]}. Install the engine with: apt-get install podman crun conmon netavark aardvark-dns catatonit iptables util-linux curl
(or use a Docker you already have: export DOCKER_HOST=unix:///var/run/docker.sock and skip this script)"
  fi
  [ "$(id -u)" = 0 ] || fail "the engine runs rootful and needs root (run with sudo), or set DOCKER_HOST to a Docker you already have"
}

# The service's pid when it is alive and is the process we started (a recycled pid is not ours).
service_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "podman system service" || return 1
  echo "$pid"
}

answers() {
  [ -S "$SOCKET_PATH" ] && [ "$(curl -s --max-time 5 --unix-socket "$SOCKET_PATH" http://engine/_ping 2>/dev/null)" = OK ]
}

# Every live process in the engine's mount namespace (service, conmon, podman cleanup) and their descendants
# (a container whose conmon is gone).
engine_processes() {
  [ -f "$NAMESPACE_FILE" ] || return 0
  local namespace
  namespace="$(cat "$NAMESPACE_FILE")"
  namespace="${namespace//[^0-9]/}"
  [ -n "$namespace" ] || return 0
  # A namespace link's inode is the namespace's number; one stat for all processes, one ps for their parents.
  local roots
  roots="$(stat -L -c '%i %n' /proc/[0-9]*/ns/mnt 2>/dev/null | awk -v number="$namespace" '$1 == number { split($2, part, "/"); print part[3] }' | xargs)"
  [ -n "$roots" ] || return 0
  ps -e -o pid=,ppid= | awk -v roots="$roots" '
    BEGIN { n = split(roots, list, " "); for (i = 1; i <= n; i++) keep[list[i]] = 1 }
    { parent[$1] = $2; pids[NR] = $1 }
    END {
      changed = 1
      while (changed) { changed = 0; for (i in pids) { p = pids[i]; if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; changed = 1 } } }
      for (p in keep) print p
    }'
}

write_configs() {
  mkdir -p "$ENGINE_STATE" "$PRIVATE_RUN" "$STORAGE_ROOT/storage" "$STORAGE_ROOT/networks" /run/netns
  # nofile as high as this process's hard limit allows (crun sets it without CAP_SYS_RESOURCE); nproc under the
  # 32768 that was measured to work.
  local nofile
  nofile="$(ulimit -Hn)"
  if [ "$nofile" = unlimited ] || [ "$nofile" -gt 1048576 ]; then nofile=1048576; fi
  cat >"$ENGINE_STATE/containers.conf" <<EOF
# Written by scripts/container-engine.sh at each start.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=4096:4096"]

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$PRIVATE_RUN/libpod"

[network]
network_config_dir = "$STORAGE_ROOT/networks"
EOF
  cat >"$ENGINE_STATE/storage.conf" <<EOF
# Written by scripts/container-engine.sh at each start.
[storage]
driver = "overlay"
runroot = "$PRIVATE_RUN/storage"
graphroot = "$STORAGE_ROOT/storage"
EOF
  # The engine's default network on its own bridge and subnet, so it never hands out an address that another
  # podman on this machine (default bridge podman0, 10.88.0.0/16) also uses.
  if [ ! -f "$STORAGE_ROOT/networks/podman.json" ]; then
    cat >"$STORAGE_ROOT/networks/podman.json" <<'EOF'
{
  "name": "podman",
  "id": "6e67796d656e67696e656e6574776f726b6e67796d656e67696e656e65740000",
  "driver": "bridge",
  "network_interface": "ngym0",
  "subnets": [{ "subnet": "10.89.0.0/16", "gateway": "10.89.0.1" }],
  "ipv6_enabled": false,
  "internal": false,
  "dns_enabled": false,
  "ipam_options": { "driver": "host-local" }
}
EOF
  fi
}

engine_environment() {
  export CONTAINERS_CONF="$ENGINE_STATE/containers.conf" CONTAINERS_STORAGE_CONF="$ENGINE_STATE/storage.conf"
}

remove_labelled_containers() {
  local ids=() label
  for label in "${LABELS[@]}"; do
    while IFS= read -r id; do [ -n "$id" ] && ids+=("$id"); done < <(podman --remote --url "unix://$SOCKET_PATH" ps -aq --filter "label=$label" 2>/dev/null || true)
  done
  [ "${#ids[@]}" -gt 0 ] || return 0
  mapfile -t ids < <(printf '%s\n' "${ids[@]}" | sort -u)
  podman --remote --url "unix://$SOCKET_PATH" rm -f -t 0 "${ids[@]}" >/dev/null 2>&1 || true
  echo "container-engine: removed ${#ids[@]} ngym sandbox container(s)" >&2
}

start() {
  require_tools
  if pid="$(service_pid)" && answers; then
    echo "export DOCKER_HOST=unix://$SOCKET_PATH"
    return 0
  fi
  # A service that is alive but does not answer, or processes of a dead one, are ended before a fresh start.
  stop_processes
  write_configs
  engine_environment
  rm -f "$SOCKET_PATH"
  local unified=""
  # Hybrid cgroups: a cgroup2 mount beside the v1 hierarchy, which crun refuses; unmounted in the namespace only.
  if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ] && mountpoint -q /sys/fs/cgroup/unified 2>/dev/null; then
    unified="umount /sys/fs/cgroup/unified;"
  fi
  local started_at=$SECONDS started_ns
  started_ns="$(date +%s%N)"
  # setsid: the service outlives this script in its own session; the namespace's tmpfs mounts hold podman's run
  # state, netns files and libpod's tmp dir, and vanish with the last process of the namespace.
  setsid unshare -m --propagation private sh -c "
    $unified
    mount -t tmpfs -o mode=0700 ngym-engine-run '$PRIVATE_RUN' &&
    mount -t tmpfs -o mode=0755 ngym-engine-netns /run/netns &&
    exec podman system service --time=0 'unix://$SOCKET_PATH'" </dev/null >"$LOG_FILE" 2>&1 9>&- &
  local pid=$!
  echo "$pid" >"$PID_FILE"
  # The namespace is recorded as soon as the process has entered it (its mnt link differs from ours).
  local own_namespace
  own_namespace="$(readlink /proc/self/ns/mnt)"
  until answers; do
    if [ ! -d "/proc/$pid" ]; then
      fail "the engine exited while starting; its log ($LOG_FILE):
$(tail -20 "$LOG_FILE")"
    fi
    if [ ! -s "$NAMESPACE_FILE" ]; then
      local namespace
      namespace="$(readlink "/proc/$pid/ns/mnt" 2>/dev/null || true)"
      [ -n "$namespace" ] && [ "$namespace" != "$own_namespace" ] && echo "$namespace" >"$NAMESPACE_FILE"
    fi
    if [ $((SECONDS - started_at)) -ge "$START_TIMEOUT_SECONDS" ]; then
      stop_processes
      fail "the engine did not answer on $SOCKET_PATH within ${START_TIMEOUT_SECONDS}s; its log ($LOG_FILE):
$(tail -20 "$LOG_FILE")"
    fi
    sleep 0.1
  done
  [ -s "$NAMESPACE_FILE" ] || readlink "/proc/$pid/ns/mnt" >"$NAMESPACE_FILE"
  # No engine was running, so any ngym container in its storage is a leftover of a killed run.
  remove_labelled_containers
  echo "container-engine: started (pid $pid) in $((($(date +%s%N) - started_ns) / 1000000)) ms; socket $SOCKET_PATH" >&2
  echo "export DOCKER_HOST=unix://$SOCKET_PATH"
}

# Ends every process of the engine: the service gets SIGTERM and up to 5 s to shut down; what is left of the
# namespace (conmon, containers, podman cleanup) then gets SIGKILL. A stop removes the sandbox containers first;
# other containers of the engine are killed with it (their state is reset at the next start, a fresh boot).
stop_processes() {
  local pid waited=0 left
  if pid="$(service_pid)"; then
    kill -TERM "$pid" 2>/dev/null || true
    while [ -d "/proc/$pid" ] && [ "$waited" -lt 50 ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
  fi
  waited=0
  left="$(engine_processes | xargs)"
  while [ -n "$left" ] && [ "$waited" -lt 25 ]; do
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    sleep 0.2
    waited=$((waited + 1))
    left="$(engine_processes | xargs)"
  done
  [ -z "$left" ] || fail "engine processes still alive after SIGKILL: $left"
  rm -f "$PID_FILE" "$NAMESPACE_FILE" "$SOCKET_PATH"
}

stop() {
  rm -rf "$LEASES" "$STARTED_FOR_LEASES"
  if answers; then remove_labelled_containers; fi
  stop_processes
  rm -f "$SOCKET_PATH"
  echo "container-engine: stopped" >&2
}

# Start and stop take a lock, so two callers (two test runs on one machine) never start two services or stop one
# that the other has just found running.
take_lock() {
  mkdir -p "$ENGINE_STATE"
  exec 9>"$ENGINE_STATE/lock"
  flock 9
}

live_leases() {
  local lease
  for lease in "$LEASES"/*; do
    [ -e "$lease" ] || continue
    if [ -d "/proc/${lease##*/}" ]; then echo "${lease##*/}"; else rm -f "$lease"; fi
  done
}

# `start --lease PID`: a test run (pid PID) uses the engine; if this call starts it, the last lease's
# `stop --lease` stops it. An engine started without --lease belongs to whoever started it and is left running.
start_leased() {
  local holder="$1" was_running=""
  if service_pid >/dev/null && answers; then was_running=1; fi
  start
  mkdir -p "$LEASES"
  touch "$LEASES/$holder"
  [ -n "$was_running" ] || touch "$STARTED_FOR_LEASES"
}

stop_leased() {
  local holder="$1" others
  rm -f "$LEASES/$holder"
  others="$(live_leases | xargs)"
  if [ ! -f "$STARTED_FOR_LEASES" ]; then
    echo "container-engine: left running (started outside the tests)" >&2
  elif [ -n "$others" ]; then
    echo "container-engine: left running for test runs $others" >&2
  else
    stop
  fi
}

status() {
  if pid="$(service_pid)" && answers; then
    echo "running (pid $pid), socket $SOCKET_PATH"
    echo "export DOCKER_HOST=unix://$SOCKET_PATH"
    return 0
  fi
  local left
  left="$(engine_processes | xargs)"
  if [ -n "$left" ]; then
    echo "not answering on $SOCKET_PATH; engine processes alive: $left (scripts/container-engine.sh stop ends them)"
  else
    echo "not running (scripts/container-engine.sh start)"
  fi
  return 3
}

# npm run setup:containers: the engine, then the base image (cached by content: a re-run takes a second).
setup() {
  take_lock
  rm -f "$STARTED_FOR_LEASES"
  start >/dev/null
  exec 9>&-
  local root started_ns
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  started_ns="$(date +%s%N)"
  DOCKER_HOST="unix://$SOCKET_PATH" node "$root/bin/ngym.js" sandbox image build --base >&2 || fail "building the base image failed (above); the engine is running: scripts/container-engine.sh stop ends it"
  echo "container-engine: base image ready in $((($(date +%s%N) - started_ns) / 1000000)) ms" >&2
  echo "export DOCKER_HOST=unix://$SOCKET_PATH"
}

lease_holder() {
  [ "${1:-}" = --lease ] && [[ "${2:-}" =~ ^[0-9]+$ ]] || fail "expected --lease <pid>, got: $*"
  echo "$2"
}

case "${1:-}" in
  start)
    take_lock
    if [ $# -gt 1 ]; then start_leased "$(lease_holder "${@:2}")"; else rm -f "$STARTED_FOR_LEASES"; start; fi
    ;;
  stop)
    take_lock
    if [ $# -gt 1 ]; then stop_leased "$(lease_holder "${@:2}")"; else stop; fi
    ;;
  status) status ;;
  setup) setup ;;
  *)
    echo "usage: scripts/container-engine.sh start|stop|status|setup" >&2
    echo "  start   start the engine (idempotent); prints: export DOCKER_HOST=unix://$SOCKET_PATH" >&2
    echo "  stop    remove ngym's sandbox containers and end every engine process" >&2
    echo "  status  say whether it runs (exit 0) or not (exit 3)" >&2
    echo "  setup   start, then build the base image localhost/ngym/base:bookworm (npm run setup:containers)" >&2
    echo "  start --lease PID / stop --lease PID  (test runs) the engine stops with the last lease if a lease started it" >&2
    echo "Environment: NGYM_ENGINE_SOCKET (socket path), NGYM_ENGINE_STORAGE (images and networks; /var/lib/ngym-engine)" >&2
    exit 2
    ;;
esac

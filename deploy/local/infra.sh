#!/usr/bin/env bash
# Local test infrastructure for Switchyard without Docker: Redis, Kafka (KRaft,
# single node) and a MongoDB wire-protocol server (FerretDB on PostgreSQL), run
# as plain processes bound to 127.0.0.1. See README.md beside this file.
#
# usage: deploy/local/infra.sh install|start|stop|destroy|status|env|restart-kafka|installed
#        deploy/local/infra.sh start-redis|stop-redis|start-mongo|stop-mongo|start-kafka|stop-kafka
#          (one server; the fault suite's outages: run them on a private instance only)
#
# Environment:
#   SWITCHYARD_CACHE       downloads and builds   (default $HOME/.cache/switchyard)
#   SWITCHYARD_M2_REPO     Maven's download cache (default $SWITCHYARD_CACHE/m2)
#   SWITCHYARD_RUN_DIR     data, logs, pid files   (default <repo>/.run/infra)
#   REDIS_PORT             default 6379
#   KAFKA_PORT             default 9092
#   KAFKA_CONTROLLER_PORT  default KAFKA_PORT+1 (9093)
#   MONGO_PORT             default 27017
#   POSTGRES_PORT          FerretDB's PostgreSQL, default MONGO_PORT+1 (27018)
#   SWITCHYARD_MONGO_IMPL  ferretdb (default) | mongo-java-server
#   POSTGRES_SYNCHRONOUS_COMMIT  off (default: a commit is acknowledged before
#                          its WAL is flushed, within 0.2 s, as a standalone
#                          mongod acknowledges before its journal) | on
#   KAFKA_HEAP_OPTS        default "-Xms256m -Xmx512m"
#   KAFKA_JVM_PERFORMANCE_OPTS  broker GC/JIT flags (default "-XX:+UseSerialGC
#                          -XX:TieredStopAtLevel=1": starts faster on a small
#                          machine; use "-XX:+UseG1GC" for throughput runs)
#   KAFKA_JVM_EXTRA_OPTS   extra JVM flags for the broker (default none)
#   JAVA                   default java
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
CACHE="${SWITCHYARD_CACHE:-$HOME/.cache/switchyard}"
RUN_DIR="${SWITCHYARD_RUN_DIR:-$REPO_ROOT/.run/infra}"

REDIS_PORT="${REDIS_PORT:-6379}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
MONGO_PORT="${MONGO_PORT:-27017}"
POSTGRES_PORT="${POSTGRES_PORT:-$((MONGO_PORT + 1))}"
MONGO_IMPL="${SWITCHYARD_MONGO_IMPL:-ferretdb}"
POSTGRES_SYNCHRONOUS_COMMIT="${POSTGRES_SYNCHRONOUS_COMMIT:-off}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
KAFKA_JVM_PERFORMANCE_OPTS="${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1}"
KAFKA_JVM_EXTRA_OPTS="${KAFKA_JVM_EXTRA_OPTS:-}"
JAVA="${JAVA:-java}"
HOST=127.0.0.1

FERRETDB_VERSION=v1.24.2
FERRETDB_MODULE=github.com/FerretDB/FerretDB
# Local patches applied before the build (deploy/local/ferretdb/*.patch); the
# binary's name carries them so a cached unpatched build is not reused.
FERRETDB_PATCHES=(update-statements postgresql-id-index atomic-updates group-accumulators postgresql-nul-strings)
FERRETDB_BIN="$CACHE/bin/ferretdb-$FERRETDB_VERSION-$(IFS=-; echo "${FERRETDB_PATCHES[*]}")"

KAFKA_POM="$SCRIPT_DIR/kafka/pom.xml"
KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_POM")"
KAFKA_LIBS="$CACHE/kafka-libs"
MJS_POM="$SCRIPT_DIR/mongo/pom.xml"
MJS_LIBS="$CACHE/mongo-java-server-libs"
MJS_CLASSES="$CACHE/mongo-java-server-classes"
M2_REPO="${SWITCHYARD_M2_REPO:-$CACHE/m2}"

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

# ---------------------------------------------------------------- helpers

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# pid_alive PIDFILE PATTERN: the pid in PIDFILE is running and its command line
# contains PATTERN (guards against a recycled pid).
pid_alive() {
  local pidfile="$1" pattern="$2" pid
  [[ -s "$pidfile" ]] || return 1
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  # zombie (exited, not yet reaped) counts as dead
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ]] || return 1
  local cmdline
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline")"
  [[ "$cmdline" == *"$pattern"* ]]
}

# stop_pid NAME PIDFILE PATTERN TIMEOUT_S
stop_pid() {
  local name="$1" pidfile="$2" pattern="$3" timeout="$4" pid i
  if ! pid_alive "$pidfile" "$pattern"; then
    rm -f "$pidfile"
    log "$name: not running"
    return 0
  fi
  pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    pid_alive "$pidfile" "$pattern" || break
    sleep 0.1
  done
  if pid_alive "$pidfile" "$pattern"; then
    log "$name: did not stop within ${timeout}s, sending SIGKILL to $pid"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$pidfile"
  log "$name: stopped"
}

# pid_listens PID PORT: the process holds the listening TCP socket on PORT. A server of this run
# dir started on other ports, with another run's server on PORT, must not pass for the server on
# PORT (its tests would write into that other run's databases). /proc only: no pipe to close early.
pid_listens() {
  local pid="$1" hex inode fd
  hex="$(printf '%04X' "$2")"
  for inode in $(awk -v port=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == port {print $10}' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null); do
    for fd in /proc/"$pid"/fd/*; do
      [[ "$(readlink "$fd" 2>/dev/null)" == "socket:[$inode]" ]] && return 0
    done
  done
  return 1
}

# listening PIDFILE PATTERN PORT: our server is running and holds PORT.
listening() { pid_alive "$1" "$2" && pid_listens "$(cat "$1")" "$3"; }

# wait_until TIMEOUT_S DESCRIPTION CMD...
wait_until() {
  local timeout="$1" what="$2" i
  shift 2
  for ((i = 0; i < timeout * 5; i++)); do
    if "$@"; then return 0; fi
    sleep 0.2
  done
  log "timed out after ${timeout}s waiting for $what"
  return 1
}

check_port_free() {
  local name="$1" port="$2"
  if port_open "$port"; then
    die "$name: port $port on $HOST is already in use by another process (set ${name^^}_PORT to use another port)"
  fi
}

need_root_cmd() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root for: $*"
  fi
}

# ---------------------------------------------------------------- install

install_redis() {
  if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    log "redis: $(redis-server --version | awk '{print $3}') already installed"
    return 0
  fi
  log "redis: installing redis-server from Debian (apt-get)"
  need_root_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive need_root_cmd apt-get install -y -qq redis-server >/dev/null
  # Debian's package enables a system-wide redis on 6379 where systemd runs;
  # we start our own, so switch that one off.
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
    need_root_cmd systemctl disable --now redis-server >/dev/null 2>&1 || true
  fi
  log "redis: installed $(redis-server --version | awk '{print $3}')"
}

# PostgreSQL's programs: Debian installs them under /usr/lib/postgresql/<major>/bin, off PATH.
postgres_bin() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [[ -n "$dir" && -x "$dir/postgres" ]]; then echo "$dir"; return 0; fi
  dir="$(dirname "$(command -v postgres 2>/dev/null || echo /nonexistent/postgres)")"
  [[ -x "$dir/postgres" && -x "$dir/initdb" && -x "$dir/pg_ctl" ]] && echo "$dir"
}

install_postgres() {
  if postgres_bin >/dev/null; then
    log "postgresql: $("$(postgres_bin)/postgres" --version | awk '{print $3}') already installed"
    return 0
  fi
  log "postgresql: installing postgresql from Debian (apt-get)"
  need_root_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive need_root_cmd apt-get install -y -qq postgresql >/dev/null
  # Debian's package creates and starts a system-wide cluster on 5432; we run our own.
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
    need_root_cmd systemctl disable --now postgresql >/dev/null 2>&1 || true
  elif [[ -x /etc/init.d/postgresql ]]; then
    need_root_cmd /etc/init.d/postgresql stop >/dev/null 2>&1 || true
  fi
  postgres_bin >/dev/null || die "postgresql: installed, but no postgres, initdb and pg_ctl found"
  log "postgresql: installed $("$(postgres_bin)/postgres" --version | awk '{print $3}')"
}

# Runs an install step holding the cache's install lock: two runs sharing one cache (two
# checkouts, two terminals) would otherwise build in one source folder at once and break each
# other's build; the second waits, then finds the first's result cached.
serialized() {
  mkdir -p "$CACHE"
  exec 9>>"$CACHE/.install.lock"
  ! command -v flock >/dev/null || flock 9
  "$@"
  ! command -v flock >/dev/null || flock -u 9
  exec 9>&-
}

install_kafka() { serialized fetch_kafka_jars; }

fetch_kafka_jars() {
  local stamp="$KAFKA_LIBS/.installed" want
  want="kafka=$KAFKA_VERSION pom=$(cksum <"$KAFKA_POM" | awk '{print $1}')"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "kafka: $KAFKA_VERSION jars cached in $KAFKA_LIBS"
    return 0
  fi
  command -v mvn >/dev/null || die "kafka: maven (mvn) is required to fetch the Kafka jars"
  log "kafka: fetching Kafka $KAFKA_VERSION jars from Maven Central into $KAFKA_LIBS"
  rm -rf "$KAFKA_LIBS"
  mvn -B -q -f "$KAFKA_POM" -Dmaven.repo.local="$M2_REPO" \
    dependency:copy-dependencies -DoutputDirectory="$KAFKA_LIBS" -DincludeScope=runtime
  [[ -f "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]] || die "kafka: jar download failed"
  echo "$want" >"$stamp"
  log "kafka: $(ls "$KAFKA_LIBS"/*.jar | wc -l) jars installed"
}

install_ferretdb() { serialized build_ferretdb; }

build_ferretdb() {
  if [[ -x "$FERRETDB_BIN" ]]; then
    log "ferretdb: $FERRETDB_VERSION cached at $FERRETDB_BIN"
    return 0
  fi
  command -v go >/dev/null || die "ferretdb: Go is required to build FerretDB (or set SWITCHYARD_MONGO_IMPL=mongo-java-server)"
  log "ferretdb: building $FERRETDB_MODULE@$FERRETDB_VERSION with $(go env GOVERSION)"
  # `go install ...@version` works with the module proxy, but the resulting binary
  # panics at start-up because build/version/version.txt is generated by
  # FerretDB's own build tooling and is not in the module zip. So: download the
  # module, copy it, write version.txt and build from the copy.
  local dir src
  dir="$(GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -n "$dir" && -d "$dir" ]] || die "ferretdb: go mod download failed"
  src="$CACHE/src/ferretdb-$FERRETDB_VERSION"
  rm -rf "$src"
  mkdir -p "$CACHE/src" "$CACHE/bin"
  cp -r "$dir" "$src"
  chmod -R u+w "$src"
  echo "$FERRETDB_VERSION" >"$src/build/version/version.txt"
  local patch
  for patch in "${FERRETDB_PATCHES[@]}"; do
    patch -d "$src" -p1 --quiet <"$SCRIPT_DIR/ferretdb/$patch.patch" || die "ferretdb: patch $patch does not apply"
  done
  (cd "$src" && GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0 \
    go build -trimpath -o "$FERRETDB_BIN.tmp" ./cmd/ferretdb)
  mv "$FERRETDB_BIN.tmp" "$FERRETDB_BIN"
  rm -rf "$src"
  # The whole output is read before its first line is taken: a reader that exits early (`| head`)
  # can end the writer with SIGPIPE, which fails the install under pipefail.
  local version
  version="$("$FERRETDB_BIN" --version)"
  log "ferretdb: built ${version%%$'\n'*}"
}

install_mongo_java_server() { serialized build_mongo_java_server; }

build_mongo_java_server() {
  local stamp="$MJS_CLASSES/.installed" want
  want="pom=$(cksum <"$MJS_POM" | awk '{print $1}') src=$(cat "$SCRIPT_DIR"/mongo/src/main/java/dev/switchyard/local/*.java | cksum | awk '{print $1}')"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "mongo-java-server: cached in $MJS_LIBS"
    return 0
  fi
  command -v mvn >/dev/null || die "mongo-java-server: maven (mvn) is required"
  command -v javac >/dev/null || die "mongo-java-server: javac (JDK) is required"
  log "mongo-java-server: fetching jars and compiling launcher"
  rm -rf "$MJS_LIBS" "$MJS_CLASSES"
  mvn -B -q -f "$MJS_POM" -Dmaven.repo.local="$M2_REPO" \
    dependency:copy-dependencies -DoutputDirectory="$MJS_LIBS" -DincludeScope=runtime
  mkdir -p "$MJS_CLASSES"
  javac -nowarn --release 17 -cp "$MJS_LIBS/*" -d "$MJS_CLASSES" \
    "$SCRIPT_DIR"/mongo/src/main/java/dev/switchyard/local/*.java
  echo "$want" >"$stamp"
}

install_mongo() {
  case "$MONGO_IMPL" in
    ferretdb) install_postgres; install_ferretdb ;;
    mongo-java-server) install_mongo_java_server ;;
    *) die "unknown SWITCHYARD_MONGO_IMPL=$MONGO_IMPL (ferretdb | mongo-java-server)" ;;
  esac
}

cmd_install() {
  local t0
  t0="$(now)"
  mkdir -p "$CACHE"
  command -v "$JAVA" >/dev/null || die "java is required for Kafka"
  install_redis
  install_kafka
  install_mongo
  log "install done in $(since "$t0")s"
}

# ---------------------------------------------------------------- redis

REDIS_DIR="$RUN_DIR/redis"
REDIS_PID="$REDIS_DIR/redis.pid"
redis_ping() { [[ "$(redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null)" == "PONG" ]]; }
redis_up() { listening "$REDIS_PID" "redis-server" "$REDIS_PORT" && redis_ping; }

start_redis() {
  local t0
  t0="$(now)"
  if redis_up; then log "redis: already running on $HOST:$REDIS_PORT (pid $(cat "$REDIS_PID"))"; return 0; fi
  if pid_alive "$REDIS_PID" "redis-server"; then
    die "redis (pid $(cat "$REDIS_PID")) is running but not answering on port $REDIS_PORT; run '$0 stop' first"
  fi
  command -v redis-server >/dev/null || install_redis
  check_port_free redis "$REDIS_PORT"
  mkdir -p "$REDIS_DIR"
  rm -f "$REDIS_PID"
  redis-server --port "$REDIS_PORT" --bind "$HOST" --save '' --appendonly no --daemonize yes \
    --protected-mode yes --dir "$REDIS_DIR" --pidfile "$REDIS_PID" \
    --logfile "$REDIS_DIR/redis.log" --loglevel notice
  wait_until 15 "redis PING" redis_up || { tail -20 "$REDIS_DIR/redis.log" >&2; die "redis did not start"; }
  log "redis: up on $HOST:$REDIS_PORT (pid $(cat "$REDIS_PID")) in $(since "$t0")s"
}

stop_redis() {
  # SIGTERM = clean shutdown; nothing is saved (--save '' --appendonly no)
  stop_pid redis "$REDIS_PID" "redis-server" 10
}

# ---------------------------------------------------------------- kafka

KAFKA_DIR="$RUN_DIR/kafka"
KAFKA_PID="$KAFKA_DIR/kafka.pid"
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_PATTERN="kafka.Kafka $KAFKA_PROPS"

kafka_java() {
  # shellcheck disable=SC2086
  "$JAVA" -Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlog4j.configuration="file:$SCRIPT_DIR/kafka/tools-log4j.properties" \
    -cp "$KAFKA_LIBS/*" "$@"
}

kafka_list_topics() {
  timeout 30 "$JAVA" -Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlog4j.configuration="file:$SCRIPT_DIR/kafka/tools-log4j.properties" \
    -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.TopicCommand \
    --bootstrap-server "$HOST:$KAFKA_PORT" --list 2>>"$KAFKA_DIR/admin.err"
}
kafka_up() { listening "$KAFKA_PID" "$KAFKA_PATTERN" "$KAFKA_PORT"; }

render_kafka_props() {
  mkdir -p "$KAFKA_DATA" "$KAFKA_DIR/logs"
  sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
    -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
    -e "s|@KAFKA_DATA_DIR@|$KAFKA_DATA|g" \
    "$SCRIPT_DIR/kafka/server.properties.template" >"$KAFKA_PROPS.tmp"
  mv "$KAFKA_PROPS.tmp" "$KAFKA_PROPS"
}

start_kafka() {
  local t0 pid cid
  t0="$(now)"
  if kafka_up; then log "kafka: already running on $HOST:$KAFKA_PORT (pid $(cat "$KAFKA_PID"))"; return 0; fi
  if pid_alive "$KAFKA_PID" "$KAFKA_PATTERN"; then
    die "kafka (pid $(cat "$KAFKA_PID")) is running but not on port $KAFKA_PORT; run '$0 stop' first"
  fi
  [[ -f "$KAFKA_LIBS/.installed" ]] || install_kafka
  check_port_free kafka "$KAFKA_PORT"
  check_port_free kafka_controller "$KAFKA_CONTROLLER_PORT"
  render_kafka_props
  if [[ ! -f "$KAFKA_DATA/meta.properties" ]]; then
    cid="$(kafka_java kafka.tools.StorageTool random-uuid | tail -1)"
    log "kafka: formatting storage in $KAFKA_DATA (cluster id $cid)"
    kafka_java kafka.tools.StorageTool format -t "$cid" -c "$KAFKA_PROPS" --ignore-formatted >"$KAFKA_DIR/logs/format.log" 2>&1 ||
      { cat "$KAFKA_DIR/logs/format.log" >&2; die "kafka: storage format failed"; }
  fi
  : >"$KAFKA_DIR/admin.err"
  # shellcheck disable=SC2086
  nohup setsid "$JAVA" -server $KAFKA_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS $KAFKA_JVM_EXTRA_OPTS \
    -Djava.awt.headless=true \
    -Dkafka.logs.dir="$KAFKA_DIR/logs" \
    -Dlog4j.configuration="file:$SCRIPT_DIR/kafka/log4j.properties" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_PROPS" \
    >"$KAFKA_DIR/logs/kafka.out" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$KAFKA_PID"
  if ! wait_until 90 "kafka port $KAFKA_PORT" bash -c "kill -0 $pid 2>/dev/null && (exec 3<>/dev/tcp/$HOST/$KAFKA_PORT) 2>/dev/null"; then
    tail -30 "$KAFKA_DIR/logs/kafka.out" "$KAFKA_DIR/logs/server.log" >&2 2>/dev/null || true
    die "kafka did not start (logs in $KAFKA_DIR/logs)"
  fi
  local port_t
  port_t="$(since "$t0")"
  if ! kafka_list_topics >/dev/null; then
    sleep 1
    kafka_list_topics >/dev/null || { cat "$KAFKA_DIR/admin.err" >&2; die "kafka: broker is up but listing topics failed"; }
  fi
  log "kafka: up on $HOST:$KAFKA_PORT (pid $pid): port open after ${port_t}s, topics listable after $(since "$t0")s"
}

stop_kafka() {
  stop_pid kafka "$KAFKA_PID" "$KAFKA_PATTERN" 30
}

# ---------------------------------------------------------------- mongo

MONGO_DIR="$RUN_DIR/mongo"
# one pid file per implementation, matched on the run-dir path (not the port),
# so `stop` finds the server even if the port variables changed since `start`
MONGO_PID="$MONGO_DIR/$MONGO_IMPL.pid"
mongo_pattern() {
  case "$MONGO_IMPL" in
    ferretdb) echo "--state-dir=$MONGO_DIR" ;;
    mongo-java-server) echo "$MONGO_DIR/mongo-java-server.h2.mv" ;;
  esac
}
mongo_up() { listening "$MONGO_PID" "$(mongo_pattern)" "$MONGO_PORT"; }

# FerretDB's PostgreSQL. PostgreSQL refuses to run as root: as root, its programs run as the
# postgres user of Debian's package, with the data in the run dir when that user can reach it.
PG_DIR="$MONGO_DIR/postgresql"
PG_DATA_LINK="$PG_DIR/data"
pg_as_owner() {
  if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_data_dir() {
  if [[ -L "$PG_DATA_LINK" ]]; then readlink "$PG_DATA_LINK"; else echo "$PG_DATA_LINK"; fi
}
pg_running() {
  local data
  data="$(pg_data_dir)"
  [[ -f "$data/postmaster.pid" ]] && pg_as_owner "$(postgres_bin)/pg_ctl" -D "$data" status >/dev/null 2>&1
}
# Running on POSTGRES_PORT: the port is line 4 of postmaster.pid.
pg_up() {
  pg_running && [[ "$(sed -n 4p "$(pg_data_dir)/postmaster.pid")" == "$POSTGRES_PORT" ]] &&
    port_open "$POSTGRES_PORT"
}

# As root, when the postgres user cannot enter the run dir (a clone under /root, a mktemp -d
# folder), the data lives in a folder of that user's home made for this run dir alone:
# ~postgres/switchyard-XXXXXX/{data,run-dir}, linked from the run dir. `run-dir` names its owner,
# so a folder whose run dir is gone, or no longer links to it, is an orphan and is removed.
PG_HOME_PREFIX=switchyard-
pg_outside_home() { getent passwd postgres | cut -d: -f6; }

# The folder of the postgres user's home that holds DATA, when DATA is one made by this script
# (switchyard-XXXXXX/data, or switchyard-<digits> itself, as an earlier version named it).
pg_outside_folder() {
  local data="$1" home
  home="$(pg_outside_home)"
  [[ -n "$home" ]] || return 1
  if [[ "$data" == "$home/$PG_HOME_PREFIX"*/data ]]; then echo "${data%/data}"
  elif [[ "$data" =~ ^"$home"/${PG_HOME_PREFIX}[0-9]+$ ]]; then echo "$data"
  else return 1
  fi
}

# pg_pid_running DATA: the postmaster of DATA's postmaster.pid is alive.
pg_pid_running() {
  local pid
  pid="$(awk 'NR == 1' "$1/postmaster.pid" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# Removes the data folders in the postgres user's home that no run dir links to any more (the
# run dir was removed, or made a new one), unless a server still runs on them.
sweep_pg_orphans() {
  [[ $EUID -eq 0 ]] && id postgres >/dev/null 2>&1 || return 0
  local home folder data owner linked
  home="$(pg_outside_home)"
  [[ -n "$home" && -d "$home" ]] || return 0
  for folder in "$home/$PG_HOME_PREFIX"*; do
    [[ -d "$folder" ]] || continue
    if [[ -f "$folder/run-dir" ]]; then
      data="$folder/data"
      owner="$(cat "$folder/run-dir")"
      linked="$(readlink "$owner/mongo/postgresql/data" 2>/dev/null || true)"
      if [[ "$linked" == "$data" ]]; then continue; fi
    elif [[ "${folder##*/}" =~ ^${PG_HOME_PREFIX}[0-9]+$ ]]; then
      # An earlier version's name: its run dir is unknown, so it goes only when no server uses it
      # and it is not the current run dir's own.
      data="$folder"
      if [[ "$(readlink "$PG_DATA_LINK" 2>/dev/null || true)" == "$data" ]]; then continue; fi
    else
      continue
    fi
    if pg_pid_running "$data"; then continue; fi
    rm -rf "$folder"
    log "postgresql: removed $folder (its run dir is gone)"
  done
}

# Removes this run dir's PostgreSQL data, wherever it lives.
remove_pg_data() {
  local folder
  if [[ -L "$PG_DATA_LINK" ]]; then
    folder="$(pg_outside_folder "$(readlink "$PG_DATA_LINK")")" && rm -rf "$folder"
    rm -f "$PG_DATA_LINK"
  else
    rm -rf "$PG_DATA_LINK"
  fi
}

# The data folder to initialise: in the run dir, or a new folder in the postgres user's home.
pg_new_data_dir() {
  local home folder
  if [[ $EUID -ne 0 ]]; then echo "$PG_DATA_LINK"; return 0; fi
  id postgres >/dev/null 2>&1 || die "postgresql: running as root needs the postgres user (Debian's package makes it)"
  chown postgres "$PG_DIR"
  if runuser -u postgres -- test -w "$PG_DIR"; then echo "$PG_DATA_LINK"; return 0; fi
  home="$(pg_outside_home)"
  folder="$(mktemp -d "$home/${PG_HOME_PREFIX}XXXXXX")"
  echo "$RUN_DIR" >"$folder/run-dir"
  chown postgres "$folder"
  ln -sfn "$folder/data" "$PG_DATA_LINK"
  echo "$folder/data"
}

start_postgres() {
  local t0 bin data
  t0="$(now)"
  bin="$(postgres_bin)" || { install_postgres; bin="$(postgres_bin)"; }
  if pg_up; then log "postgresql: already running on $HOST:$POSTGRES_PORT"; return 0; fi
  pg_running && die "postgresql of this run dir is running but not on port $POSTGRES_PORT; run '$0 stop' first"
  check_port_free postgres "$POSTGRES_PORT"
  mkdir -p "$PG_DIR"
  sweep_pg_orphans
  data="$(pg_data_dir)"
  if [[ ! -f "$data/PG_VERSION" ]]; then
    # Nothing usable here (a first start, a link to a folder removed since, a cut-off initdb):
    # start from a new, empty folder.
    remove_pg_data
    data="$(pg_new_data_dir)"
    pg_as_owner mkdir -p "$data"
    chmod 700 "$data" 2>/dev/null || pg_as_owner chmod 700 "$data"
    pg_as_owner "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >"$PG_DIR/initdb.log" 2>&1 ||
      { cat "$PG_DIR/initdb.log" >&2; die "postgresql: initdb failed"; }
    log "postgresql: initialised $data"
  fi
  [[ $EUID -ne 0 ]] || chown postgres "$PG_DIR"
  pg_as_owner "$bin/pg_ctl" -D "$data" -l "$data/postgresql.log" -w -t 60 start -o "-p $POSTGRES_PORT \
    -c listen_addresses=$HOST -c unix_socket_directories=$data \
    -c synchronous_commit=$POSTGRES_SYNCHRONOUS_COMMIT -c max_connections=200" >/dev/null ||
    { tail -20 "$data/postgresql.log" >&2; die "postgresql did not start"; }
  local exists
  exists="$("$bin/psql" -h "$HOST" -p "$POSTGRES_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" || true)"
  if [[ "$exists" != 1 ]]; then
    "$bin/createdb" -h "$HOST" -p "$POSTGRES_PORT" -U postgres ferretdb || die "postgresql: createdb ferretdb failed"
  fi
  log "postgresql: up on $HOST:$POSTGRES_PORT in $(since "$t0")s"
}

stop_postgres() {
  local data
  data="$(pg_data_dir)"
  if [[ ! -f "$data/postmaster.pid" ]]; then log "postgresql: not running"; return 0; fi
  # fast: ends the sessions and checkpoints; the data is kept
  pg_as_owner "$(postgres_bin)/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
    log "postgresql: pg_ctl stop failed (see $data/postgresql.log)"
  log "postgresql: stopped"
}

start_mongo() {
  local t0 pid
  t0="$(now)"
  if mongo_up; then log "mongo: already running on $HOST:$MONGO_PORT (pid $(cat "$MONGO_PID"))"; return 0; fi
  if pid_alive "$MONGO_PID" "$(mongo_pattern)"; then
    die "mongo: $MONGO_IMPL (pid $(cat "$MONGO_PID")) is running but not answering on port $MONGO_PORT; run '$0 stop' first"
  fi
  install_mongo
  check_port_free mongo "$MONGO_PORT"
  case "$MONGO_IMPL" in
    ferretdb)
      start_postgres
      nohup setsid "$FERRETDB_BIN" --handler=postgresql \
        --postgresql-url="postgres://postgres@$HOST:$POSTGRES_PORT/ferretdb" \
        --listen-addr="$HOST:$MONGO_PORT" --debug-addr=- --telemetry=disable \
        --state-dir="$MONGO_DIR" --log-level=info --log-format=text \
        >"$MONGO_DIR/ferretdb.log" 2>&1 </dev/null &
      ;;
    mongo-java-server)
      mkdir -p "$MONGO_DIR"
      nohup setsid "$JAVA" -Xms64m -Xmx512m -XX:+UseSerialGC \
        -cp "$MJS_CLASSES:$MJS_LIBS/*" dev.switchyard.local.MongoServerMain \
        "$HOST" "$MONGO_PORT" "$MONGO_DIR/mongo-java-server.h2.mv" \
        >"$MONGO_DIR/mongo-java-server.log" 2>&1 </dev/null &
      ;;
  esac
  pid=$!
  echo "$pid" >"$MONGO_PID"
  if ! wait_until 30 "mongo port $MONGO_PORT" bash -c "kill -0 $pid 2>/dev/null && (exec 3<>/dev/tcp/$HOST/$MONGO_PORT) 2>/dev/null"; then
    tail -30 "$MONGO_DIR/$MONGO_IMPL.log" >&2 || true
    die "mongo ($MONGO_IMPL) did not start"
  fi
  log "mongo: $MONGO_IMPL up on $HOST:$MONGO_PORT (pid $pid) in $(since "$t0")s"
}

stop_mongo() {
  stop_pid "mongo ($MONGO_IMPL)" "$MONGO_PID" "$(mongo_pattern)" 20
  [[ "$MONGO_IMPL" != ferretdb ]] || stop_postgres
}

# ---------------------------------------------------------------- commands

# Ends the servers an earlier run left running after its run dir was removed (a killed test
# run, a deleted clone): they would hold their ports, and nothing could stop them otherwise.
# A server is taken as such only by its command line and a path of its run dir that is gone.
stop_orphan_servers() {
  local proc pid cmdline path cwd signal pids=() i
  for proc in /proc/[0-9]*; do
    pid="${proc#/proc/}"
    cmdline="$(tr '\0' ' ' <"$proc/cmdline" 2>/dev/null)" || continue
    path=""
    signal=TERM
    case "$cmdline" in
      *" kafka.Kafka "*/kafka/server.properties*)
        path="${cmdline##* kafka.Kafka }"; path="${path%% *}" ;;
      *ferretdb*" --state-dir="*)
        path="${cmdline##*--state-dir=}"; path="${path%% *}" ;;
      redis-server*)
        cwd="$(readlink "$proc/cwd" 2>/dev/null || true)"
        [[ "$cwd" != */redis" (deleted)" ]] || path="${cwd% (deleted)}" ;;
      *"postgres -D "*/${PG_HOME_PREFIX}*/data*)
        # Its data is outside the run dir: an orphan when its run dir no longer links to it.
        path="${cmdline##*postgres -D }"; path="${path%% *}"
        signal=INT # fast shutdown
        if [[ "$(readlink "$(cat "${path%/data}/run-dir" 2>/dev/null)/mongo/postgresql/data" 2>/dev/null)" == "$path" ]]; then
          path=""
        else
          path="${path%/data}/run-dir (no run dir links to it)"
        fi ;;
    esac
    [[ -n "$path" && ! -e "$path" ]] || continue
    log "stopping ${cmdline%% *} (pid $pid): its run dir is gone ($path)"
    kill "-$signal" "$pid" 2>/dev/null && pids+=("$pid")
  done
  for ((i = 0; i < 100 && ${#pids[@]} > 0; i++)); do
    for pid in "${!pids[@]}"; do kill -0 "${pids[$pid]}" 2>/dev/null || unset "pids[$pid]"; done
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}

cmd_start() {
  local t0
  t0="$(now)"
  mkdir -p "$RUN_DIR"
  stop_orphan_servers
  start_redis
  start_mongo
  start_kafka
  log "all servers up in $(since "$t0")s (run dir $RUN_DIR)"
  cmd_env
}

# The data is kept for the next start; PostgreSQL data of run dirs removed since goes (as at start).
cmd_stop() {
  stop_kafka
  stop_mongo
  stop_redis
  sweep_pg_orphans
}

# Stops the servers and removes the run dir's data, the PostgreSQL data outside it included.
cmd_destroy() {
  cmd_stop
  remove_pg_data
  rm -rf "$RUN_DIR"
  log "removed $RUN_DIR"
}

cmd_status() {
  local rc=0 line
  line() { printf '%-7s %-5s %s\n' "$1" "$2" "$3"; }
  if redis_up; then line redis up "redis://$HOST:$REDIS_PORT pid $(cat "$REDIS_PID")"
  else line redis down "redis://$HOST:$REDIS_PORT"; rc=3; fi
  if kafka_up; then line kafka up "$HOST:$KAFKA_PORT pid $(cat "$KAFKA_PID") (Kafka $KAFKA_VERSION KRaft)"
  else line kafka down "$HOST:$KAFKA_PORT"; rc=3; fi
  if mongo_up; then line mongo up "mongodb://$HOST:$MONGO_PORT pid $(cat "$MONGO_PID") ($MONGO_IMPL$([[ "$MONGO_IMPL" != ferretdb ]] || echo " on PostgreSQL $HOST:$POSTGRES_PORT"))"
  else line mongo down "mongodb://$HOST:$MONGO_PORT ($MONGO_IMPL)"; rc=3; fi
  return $rc
}

cmd_env() {
  local any=0
  if kafka_up; then echo "export KAFKA_BROKERS=$HOST:$KAFKA_PORT"; any=1; else log "kafka is down: KAFKA_BROKERS not printed"; fi
  if mongo_up; then echo "export MONGODB_URI=mongodb://$HOST:$MONGO_PORT"; any=1; else log "mongo is down: MONGODB_URI not printed"; fi
  if redis_up; then echo "export REDIS_URL=redis://$HOST:$REDIS_PORT"; any=1; else log "redis is down: REDIS_URL not printed"; fi
  [[ $any -eq 1 ]]
}

cmd_restart_kafka() {
  local t0
  t0="$(now)"
  stop_kafka
  start_kafka
  log "kafka restarted in $(since "$t0")s (data kept in $KAFKA_DATA)"
}

# Exit 0 when every server is installed here (tests use it to decide whether to start them).
cmd_installed() {
  command -v redis-server >/dev/null || return 1
  [[ -f "$KAFKA_LIBS/.installed" ]] || return 1
  if [[ "$MONGO_IMPL" == ferretdb ]]; then [[ -x "$FERRETDB_BIN" ]] && postgres_bin >/dev/null; else [[ -f "$MJS_CLASSES/.installed" ]]; fi
}

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  destroy) cmd_destroy ;;
  status) cmd_status ;;
  env) cmd_env ;;
  restart-kafka) cmd_restart_kafka ;;
  start-redis) start_redis ;;
  stop-redis) stop_redis ;;
  start-mongo) start_mongo ;;
  stop-mongo) stop_mongo ;;
  start-kafka) start_kafka ;;
  stop-kafka) stop_kafka ;;
  installed) cmd_installed ;;
  -h | --help | help) usage ;;
  *) usage >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# A throw-away single-node Kafka with one SASL_SSL listener (TLS with a self-signed CA,
# SCRAM-SHA-512 users), for the test proving the bus's KAFKA_SSL_CA_FILE / KAFKA_SASL_* settings
# end to end (shared/test/kafka-security.test.ts). Uses the Kafka jars `infra.sh install` caches.
#   kafka-sasl.sh start DIR PORT USER PASSWORD   # writes DIR/ca.pem; returns once the port answers
#   kafka-sasl.sh stop DIR
set -euo pipefail
CACHE="${SWITCHYARD_CACHE:-$HOME/.cache/switchyard}"
KAFKA_LIBS="$CACHE/kafka-libs"
JAVA="${JAVA:-java}"
STORE_PASSWORD=switchyard-test

JVM_OPTS=(-Xms128m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$KAFKA_LIBS/*")
kafka_java() { "$JAVA" "${JVM_OPTS[@]}" "$@"; }

start() {
  local dir=$1 port=$2 user=$3 password=$4 controller=$(($2 + 1))
  [ -f "$KAFKA_LIBS/.installed" ] || { echo "Kafka jars missing: run deploy/local/infra.sh install" >&2; exit 1; }
  rm -rf "$dir" && mkdir -p "$dir/logs"
  keytool -genkeypair -alias broker -keyalg RSA -keysize 2048 -validity 2 -dname CN=localhost \
    -ext SAN=dns:localhost,ip:127.0.0.1 -keystore "$dir/broker.p12" -storetype PKCS12 \
    -storepass "$STORE_PASSWORD" -keypass "$STORE_PASSWORD" >/dev/null 2>&1
  keytool -exportcert -rfc -alias broker -keystore "$dir/broker.p12" -storepass "$STORE_PASSWORD" >"$dir/ca.pem"
  keytool -importcert -noprompt -alias ca -file "$dir/ca.pem" -keystore "$dir/trust.p12" -storetype PKCS12 \
    -storepass "$STORE_PASSWORD" >/dev/null 2>&1
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=SASL_SSL://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=SASL_SSL://127.0.0.1:$port
inter.broker.listener.name=SASL_SSL
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="$STORE_PASSWORD";
ssl.keystore.location=$dir/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$STORE_PASSWORD
ssl.key.password=$STORE_PASSWORD
ssl.truststore.location=$dir/trust.p12
ssl.truststore.type=PKCS12
ssl.truststore.password=$STORE_PASSWORD
log.dirs=$dir/data
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  kafka_java kafka.tools.StorageTool format -t "$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" \
    -c "$dir/server.properties" --add-scram "SCRAM-SHA-512=[name=broker,password=$STORE_PASSWORD]" \
    --add-scram "SCRAM-SHA-512=[name=$user,password=$password]" >"$dir/logs/format.log" 2>&1
  # Started directly (not through a function) so that $! is the JVM itself, which stop() ends.
  "$JAVA" "${JVM_OPTS[@]}" -Dkafka.logs.dir="$dir/logs" -Dlog4j.configuration="file:$(dirname "$0")/kafka/log4j.properties" \
    kafka.Kafka "$dir/server.properties" >"$dir/logs/kafka.out" 2>&1 </dev/null &
  echo $! >"$dir/kafka.pid"
  for _ in $(seq 1 120); do
    kill -0 "$(cat "$dir/kafka.pid")" 2>/dev/null || { tail -20 "$dir/logs/server.log" >&2 2>/dev/null; exit 1; }
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.5
  done
  echo "Kafka (SASL_SSL) did not open port $port" >&2
  stop "$dir"
  exit 1
}

stop() {
  local pid
  pid=$(cat "$1/kafka.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  rm -rf "$1"
}

case "${1:-}" in
  start) start "$2" "$3" "$4" "$5" ;;
  stop) stop "$2" ;;
  *) echo "usage: $0 start DIR PORT USER PASSWORD | stop DIR" >&2; exit 2 ;;
esac

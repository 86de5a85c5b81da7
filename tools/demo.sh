#!/usr/bin/env bash
# make demo: the whole system on one machine, without Bluetooth.
#
# Simulates the two-floor house (tools/sites/house.yaml) into one btsnoop capture per node,
# starts a private mosquitto on 127.0.0.1, the aggregator with SQLite, and one
# whereabouts-edge per node replaying its capture in real time; then prints zone events and a
# room table as they happen. Ctrl-C stops everything in order (edges, aggregator, broker).
set -euo pipefail

bin=${WHEREABOUTS_BIN:?set WHEREABOUTS_BIN to the directory of the built programs}
out=${DEMO_DIR:-out/demo}
site=${DEMO_SITE:-tools/sites/house.yaml}
scenario=${DEMO_SCENARIO:-tools/scenarios/house.yaml}
port=${DEMO_PORT:-18883}
http=${DEMO_HTTP:-127.0.0.1:9464}
broker="mqtt://127.0.0.1:$port"

echo "== the live map will be at http://$http/ (open it in a browser on this machine)"
mkdir -p "$out"
rm -rf "$out/sim" "$out/whereabouts.db" "$out/whereabouts.db-wal" "$out/whereabouts.db-shm"
echo "== simulating $site with $scenario"
"$bin/whereabouts" simulate --site "$site" --scenario "$scenario" --out "$out/sim" >/dev/null

cat > "$out/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
log_dest stderr
CONF

pids_edges=()
pid_aggregator=""
pid_broker=""
stopping=0
stop() {
    [ "$stopping" = 1 ] && return
    stopping=1
    echo
    echo "== stopping: edges, aggregator, broker"
    for p in "${pids_edges[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids_edges[@]}"; do wait "$p" 2>/dev/null || true; done
    [ -n "$pid_aggregator" ] && kill -TERM "$pid_aggregator" 2>/dev/null && wait "$pid_aggregator" 2>/dev/null || true
    sleep 0.5
    [ -n "$pid_broker" ] && kill -TERM "$pid_broker" 2>/dev/null || true
    echo "== the tracks and visits are in $out/whereabouts.db; try:"
    echo "   $bin/whereabouts visits --db $out/whereabouts.db"
    echo "   logs: $out/aggregator.log, $out/edge-*.log, $out/mosquitto.log"
}
trap stop EXIT
trap 'exit 0' INT TERM

# Each service runs in its own session, so Ctrl-C reaches only this script, which then
# stops them in order: a broker that went first would lose the aggregator's last exits.
setsid mosquitto -c "$out/mosquitto.conf" 2>"$out/mosquitto.log" & pid_broker=$!
for _ in $(seq 50); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done

setsid "$bin/whereabouts-aggregator" --site "$site" --broker "$broker" --db "$out/whereabouts.db" \
    --http "$http" >"$out/aggregator.log" 2>&1 & pid_aggregator=$!
sleep 1
for capture in "$out"/sim/*.btsnoop; do
    node=$(basename "$capture" .btsnoop)
    # The edges resolve the phones' rotating addresses with the site's IRKs, as real nodes do
    # with their --irks-file; without them Alex's phone would be dozens of passing strangers.
    setsid "$bin/whereabouts-edge" --node "$node" --broker "$broker" --replay "$capture" --speed 1 --retime \
        --irks-file "$site" >"$out/edge-$node.log" 2>&1 & pids_edges+=($!)
done
echo "== the live map: http://$http/  (metrics on http://$http/metrics)"
echo "== ${#pids_edges[@]} edges replaying in real time; Ctrl-C to stop"
"$bin/whereabouts" watch --broker "$broker" --site "$site" --table-every 15 ${DEMO_SECONDS:+--for "$DEMO_SECONDS"}

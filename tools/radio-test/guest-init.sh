#!/bin/busybox sh
# The guest side of tools/radio-test: /init of the initramfs. Runs each check of
# the live radio path against two btvirt controllers on one virtual air and prints one
# "RADIO-TEST PASS|FAIL <check>" line per check, then "RADIO-TEST DONE", and powers off.
# The host judges only by these lines: qemu exits 0 however the guest ends.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp /run
ifconfig lo 127.0.0.1 up
FAILED=0

pass() { echo "RADIO-TEST PASS $*"; }
fail() { echo "RADIO-TEST FAIL $*"; FAILED=1; }
# check NAME COMMAND...: one verdict line for the command's status.
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
# wait_for SECONDS FILE PATTERN [COUNT]: until FILE has COUNT (default 1) lines matching PATTERN.
wait_for() {
    tenths=$(($1 * 10)); want=${4:-1}
    while [ $tenths -gt 0 ]; do
        [ "$(grep -c -- "$3" "$2" 2>/dev/null)" -ge "$want" ] 2>/dev/null && return 0
        sleep 0.1; tenths=$((tenths - 1))
    done
    return 1
}

# scanning_after_down SECONDS: telemetry on the broker says "scanning" after it said "down".
scanning_after_down() {
    tenths=$(($1 * 10))
    while [ $tenths -gt 0 ]; do
        sed -n '/"adapter_state":"down/,$p' /tmp/mqtt.log | grep -q '"adapter_state":"scanning' && return 0
        sleep 0.1; tenths=$((tenths - 1))
    done
    return 1
}

for m in $(cat /lib/modules/order); do insmod "/lib/modules/$m" || echo "guest: insmod $m failed"; done
# Two LE-only controllers (hci0 scans, hci1 advertises); ECDH self-test errors under TCG are harmless.
btvirt -l2 -L >/tmp/btvirt.log 2>&1 &
tenths=100; while [ ! -e /sys/class/bluetooth/hci1 ] && [ $tenths -gt 0 ]; do sleep 0.1; tenths=$((tenths - 1)); done
hciconfig hci0 up && hciconfig hci1 up || fail "setup: btvirt controllers up"

mosquitto -c /etc/mosquitto/mosquitto.conf -d
sleep 0.3
mosquitto_sub -h 127.0.0.1 -v -t 'whereabouts/#' >/tmp/mqtt.log 2>&1 &

UUID=f7826da6-4fa2-4e98-8024-bc5b71e0893e
ID42="iBeacon:$UUID-1-42"
ID43="iBeacon:$UUID-1-43"

# advertise DEV MINOR_HEX: (re-)enables DEV's non-connectable iBeacon advertisement.
advertise() {
    hcitool -i "$1" cmd 0x08 0x000A 00 >/dev/null
    hcitool -i "$1" cmd 0x08 0x0006 A0 00 A0 00 03 00 00 00 00 00 00 00 00 07 00 >/dev/null
    hcitool -i "$1" cmd 0x08 0x0008 1E 02 01 06 1A FF 4C 00 02 15 \
        F7 82 6D A6 4F A2 4E 98 80 24 BC 5B 71 E0 89 3E 00 01 00 "$2" C5 00 >/dev/null
    hcitool -i "$1" cmd 0x08 0x000A 01 | grep -q '01 0A 20 00'
}
# advertise_extended DEV MINOR_HEX: the same iBeacon through the Bluetooth 5 extended
# advertising commands (legacy PDU, non-connectable): set 0, on the LE 1M PHY.
advertise_extended() {
    hcitool -i "$1" cmd 0x08 0x0036 00 10 00 A0 00 00 A0 00 00 07 00 00 00 00 00 00 00 00 00 7F 01 00 01 00 00 >/dev/null
    hcitool -i "$1" cmd 0x08 0x0037 00 03 01 1E 02 01 06 1A FF 4C 00 02 15 \
        F7 82 6D A6 4F A2 4E 98 80 24 BC 5B 71 E0 89 3E 00 01 00 "$2" C5 >/dev/null
    hcitool -i "$1" cmd 0x08 0x0039 01 01 00 00 00 00 | grep -q '01 39 20 00'
}
# edge NAME ARGS...: the edge in the background; stdout in /tmp/NAME.out, stderr in /tmp/NAME.err.
edge() {
    name=$1; shift
    whereabouts-edge --node radio --broker mqtt://127.0.0.1:1883 --telemetry-interval 1s --print "$@" \
        >"/tmp/$name.out" 2>"/tmp/$name.err" &
    EDGE=$!
}
stop_edge() { kill -TERM "$EDGE"; wait "$EDGE"; }
# Set Scan Parameters succeeds only while the controller is not scanning.
legacy_scan_off() { hcitool -i "$1" cmd 0x08 0x000B 00 60 00 60 00 00 00 | grep -q '01 0B 20 00'; }
extended_scan_off() { hcitool -i "$1" cmd 0x08 0x0041 00 00 01 00 60 00 60 00 | grep -q '01 41 20 00'; }

# 1. --adapter owns the scan, and leaves the controller as it found it.
check "setup: hci1 advertises the iBeacon" advertise hci1 2A
edge adapter --adapter hci0
check "adapter: --adapter hci0 --print sees hci1's $ID42" wait_for 20 /tmp/adapter.out "\"$ID42\""
check "adapter: LE-only controller scans with the legacy commands" grep -q 'hci0: scanning (legacy commands, passive)' /tmp/adapter.err
stop_edge; rc=$?
check "adapter: exits 0 on SIGTERM" [ "$rc" -eq 0 ]
check "adapter: reports scan disabled and HCI filter restored" grep -q 'hci0: stopped: scan disabled, HCI filter restored' /tmp/adapter.err
check "adapter: controller hci0 is not scanning afterwards" legacy_scan_off hci0

# 2. --monitor takes the reports of whoever scans, sending nothing: btmon shows every raw
# socket opened (hcitool's, the positive control) and must show none of the edge's.
btmon >/tmp/btmon-monitor.log 2>&1 &
BTMON=$!
sleep 0.5
edge monitor --monitor
wait_for 10 /tmp/monitor.err 'monitor: listening'
hcitool -i hci0 lescan --passive --duplicates >/tmp/lescan.out 2>&1 &
LESCAN=$!
check "monitor: --monitor --print sees $ID42 while hcitool lescan scans" wait_for 20 /tmp/monitor.out "\"$ID42\""
kill -INT "$LESCAN"; wait "$LESCAN"
stop_edge; rc=$?
check "monitor: exits 0 on SIGTERM" [ "$rc" -eq 0 ]
kill "$BTMON"; wait "$BTMON"  # btmon writes its buffered log as it exits
check "monitor: btmon saw hcitool open a raw socket" grep -q 'RAW Open: hcitool' /tmp/btmon-monitor.log
check "monitor: btmon saw the edge open no raw socket (it sent no command)" sh -c '! grep -q "RAW Open: whereabouts" /tmp/btmon-monitor.log' 

# 3. The adapter goes down and up under a running edge; 4. MQTT and telemetry.
edge reopen --adapter hci0 --scan active
wait_for 20 /tmp/reopen.out "\"$ID42\"" || fail "reopen: first report before the adapter goes down"
hciconfig hci0 down
check "reopen: --scan active scans actively" grep -q 'hci0: scanning (legacy commands, active)' /tmp/reopen.err
check "reopen: the edge notices hci0 going down" wait_for 10 /tmp/reopen.err 'hci0: down'
check "telemetry: says the adapter is down while it is" wait_for 10 /tmp/mqtt.log 'telemetry .*"adapter_state":"down'
sleep 1
hciconfig hci0 up
check "reopen: the edge scans again after hciconfig hci0 up" wait_for 15 /tmp/reopen.err 'hci0: scanning' 2
check "reopen: hci1 re-enables its advertisement with minor 43" advertise hci1 2B
check "reopen: the edge sees the re-enabled advertisement $ID43" wait_for 20 /tmp/reopen.out "\"$ID43\""
check "telemetry: says the adapter scans again afterwards" scanning_after_down 10
check "mqtt: status online on the broker" wait_for 10 /tmp/mqtt.log 'whereabouts/nodes/radio/status online'
check "mqtt: telemetry on the broker counts the reports" wait_for 10 /tmp/mqtt.log 'telemetry .*"adapter":"hci0".*"adverts":[1-9]'
stop_edge; rc=$?
check "mqtt: status offline after SIGTERM (exit $rc)" wait_for 10 /tmp/mqtt.log 'whereabouts/nodes/radio/status offline'

# 5. A Bluetooth 5 controller: the extended scanning commands (a second, separate air).
btvirt -l2 >/tmp/btvirt5.log 2>&1 &
BTVIRT5=$!
tenths=100; while [ ! -e /sys/class/bluetooth/hci3 ] && [ $tenths -gt 0 ]; do sleep 0.1; tenths=$((tenths - 1)); done
hciconfig hci2 up && hciconfig hci3 up || fail "setup: btvirt 5.x controllers up"
check "setup: hci3 advertises the iBeacon with the extended commands" advertise_extended hci3 2A
btmon -i hci2 >/tmp/btmon-hci2.log 2>&1 &
BTMON=$!
ADDR2=$(hciconfig hci2 | awk '/BD Address/ { print $3 }')
edge extended --adapter "$ADDR2"
check "extended: a Bluetooth 5 controller scans with the extended commands" wait_for 15 /tmp/extended.err "$ADDR2: scanning (extended commands, passive)"
check "extended: sees $ID42 in an extended report (event type 0x10)" wait_for 20 /tmp/extended.out "\"event_type\":16,\"id\":\"$ID42\""
# 6. The adapter goes away altogether (its btvirt ends: the kernel unregisters hci2 and
# hci3) and comes back under the same address.
kill "$BTVIRT5"; wait "$BTVIRT5"
check "unplug: the edge notices $ADDR2 going away" wait_for 10 /tmp/extended.err "$ADDR2: down"
btvirt -l2 >>/tmp/btvirt5.log 2>&1 &
BTVIRT5=$!
tenths=100; while [ ! -e /sys/class/bluetooth/hci3 ] && [ $tenths -gt 0 ]; do sleep 0.1; tenths=$((tenths - 1)); done
hciconfig hci2 up && hciconfig hci3 up
check "unplug: the edge scans again on the new adapter with address $ADDR2" wait_for 15 /tmp/extended.err "$ADDR2: scanning" 2
stop_edge
check "extended: controller hci2 is not scanning afterwards" extended_scan_off hci2
kill "$BTMON"; wait "$BTMON"

# The edge's state lines stay in the console log (the harness shows only "guest:" lines).
for f in /tmp/*.err; do echo "--- $f"; cat "$f"; done
if [ "$FAILED" != 0 ]; then
    for f in /tmp/*.err /tmp/*.out /tmp/mqtt.log /tmp/btvirt*.log /tmp/btmon*.log; do
        echo "guest: --- $f"; tail -n 60 "$f" | sed 's/^/guest: /'
    done
fi
echo "RADIO-TEST DONE"
sync
poweroff -f

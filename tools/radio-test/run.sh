#!/usr/bin/env bash
# The live radio path on a real Linux kernel: builds whereabouts-edge with the
# Swift runtime linked in, boots Debian 12's stock kernel under qemu with an initramfs
# holding btvirt (two virtual LE controllers on one air), mosquitto and the edge, and judges
# by the PASS/FAIL lines the guest prints on its serial console.
#
#   tools/radio-test/run.sh        (or: make radio-test)
#
# Environment: RADIO_TEST_CACHE (default ~/.cache/whereabouts/radio-test, outside the checkout
# so that fresh clones on one machine share the image), RADIO_TEST_SCRATCH (the edge's
# build directory, default .build-hci), RADIO_TEST_TIMEOUT (seconds for the guest, 180).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tools/radio-test
CACHE=${RADIO_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whereabouts/radio-test}
SCRATCH=${RADIO_TEST_SCRATCH:-.build-hci}
TIMEOUT=${RADIO_TEST_TIMEOUT:-180}
HOST_PACKAGES="qemu-system-x86 kmod mosquitto mosquitto-clients binutils"

say() { echo "radio-test: $*" >&2; }
die() { say "$*"; echo "0 passed, 1 failed"; exit 1; }
SECONDS=0

# The host tools: qemu, depmod/modprobe (kmod), strip, the broker the guest runs.
install_host_tools() {
    local missing="" p
    for p in $HOST_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return
    say "installing:$missing"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# Debian 12's current stock kernel and the guest's tools, downloaded (never installed).
fetch_packages() {
    mkdir -p "$CACHE/debs"
    KVER=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { sub("linux-image-", "", $2); print $2; exit }')
    if [ -z "$KVER" ]; then
        KVER=$(ls "$CACHE"/vmlinuz-* 2>/dev/null | sed 's/.*vmlinuz-//' | sort -V | tail -1)
        [ -n "$KVER" ] || die "cannot tell Debian's kernel version (apt-cache depends linux-image-amd64)"
        say "apt has no answer; using the cached kernel $KVER"
    fi
    local p missing=""
    for p in "linux-image-$KVER" bluez bluez-test-tools busybox-static; do
        ls "$CACHE/debs/${p}_"*.deb >/dev/null 2>&1 || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        say "downloading:$missing"
        (cd "$CACHE/debs" && apt-get download $missing >/dev/null 2>&1) || die "apt-get download$missing failed"
    fi
    DEBS=$(ls "$CACHE/debs/linux-image-${KVER}_"*.deb "$CACHE"/debs/{bluez,bluez-test-tools,busybox-static}_*.deb | sort -V)
}

# The edge, static Swift runtime: the guest has the C libraries ldd lists, nothing of Swift.
build_edge() {
    say "building whereabouts-edge (release, --static-swift-stdlib, --scratch-path $SCRATCH)"
    (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product whereabouts-edge 2>&1 |
        grep -E "error|Compiling|Build" | tail -3) >&2
    EDGE=$(cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)/whereabouts-edge
    [ -x "$EDGE" ] || die "no edge binary at $EDGE"
    if ldd "$EDGE" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|/usr/lib/swift'; then
        die "the edge still needs Swift shared libraries (above)"
    fi
}

# The cached base image, rebuilt when its packages or image.sh change.
base_image() {
    local key
    key=$({ echo "$DEBS" | xargs -n1 basename; dpkg-query -W mosquitto mosquitto-clients; cat "$HERE/image.sh"; } | sha256sum | cut -c1-16)
    BASE=$CACHE/base-$key.cpio.gz
    VMLINUZ=$CACHE/vmlinuz-$KVER
    BUSYBOX=$CACHE/busybox
    if [ -s "$BASE" ] && [ -s "$VMLINUZ" ] && [ -x "$BUSYBOX" ]; then return; fi
    say "assembling the guest image for kernel $KVER"
    local root=$CACHE/root
    rm -rf "$root"
    for d in $DEBS; do dpkg -x "$d" "$root"; done
    cp "$root/boot/vmlinuz-$KVER" "$VMLINUZ"
    cp "$root/bin/busybox" "$BUSYBOX"
    build_base "$root" "$KVER" "$BASE"
    rm -rf "$root"
    find "$CACHE" -maxdepth 1 -name 'base-*.cpio.gz' ! -name "$(basename "$BASE")" -delete
}

# KVM only when it really boots here (on many hosts it hangs or fails); remembered per host kernel.
accelerator() {
    local probe=$CACHE/kvm-$(uname -r)
    if [ ! -f "$probe" ]; then
        local answer=no
        if [ -w /dev/kvm ] && timeout 20 qemu-system-x86_64 -accel kvm -m 256 -nographic -no-reboot \
               -kernel "$VMLINUZ" -append "console=ttyS0 panic=-1 rdinit=/nothing" </dev/null 2>&1 |
               grep -q "Linux version"; then
            answer=yes
        fi
        echo "$answer" >"$probe"
    fi
    if [ "$(cat "$probe")" = yes ]; then echo "-accel kvm"; else echo "-accel tcg"; fi
}

main() {
    install_host_tools
    fetch_packages
    source "$HERE/image.sh"
    mkdir -p "$CACHE"
    printf '*\n' >"$CACHE/.gitignore"
    build_edge
    local built=$SECONDS
    base_image
    local run=$CACHE/run
    mkdir -p "$run"
    build_run_archive "$EDGE" "$HERE/guest-init.sh" "$run/edge.cpio"
    # The kernel unpacks concatenated archives in order; an uncompressed one must come first.
    cat "$run/edge.cpio" "$BASE" >"$run/initrd"
    rm -f "$run/edge.cpio"
    local accel log=$run/console.log
    accel=$(accelerator)
    say "booting Linux $KVER ($accel); console in $log"
    local boot=$SECONDS
    timeout "$TIMEOUT" qemu-system-x86_64 $accel -m 1024 -smp 2 -nographic -no-reboot \
        -kernel "$VMLINUZ" -initrd "$run/initrd" \
        -append "console=ttyS0 quiet panic=-1 rdinit=/init" </dev/null >"$log" 2>&1 || true
    verdict "$log"
    say "build ${built}s, image $((boot - built))s, guest $((SECONDS - boot))s"
    [ "$FAILED" = 0 ]
}

# Counts the guest's verdict lines; a guest that never says DONE has failed.
verdict() {
    local log=$1
    tr -d '\r' <"$log" | grep -E '^(RADIO-TEST (PASS|FAIL)|guest:)' || true
    local passed failed
    passed=$(tr -d '\r' <"$log" | grep -c '^RADIO-TEST PASS' || true)
    failed=$(tr -d '\r' <"$log" | grep -c '^RADIO-TEST FAIL' || true)
    if ! tr -d '\r' <"$log" | grep -q '^RADIO-TEST DONE'; then
        echo "RADIO-TEST FAIL the guest gave no verdict (timeout or crash); last console lines:"
        tail -n 30 "$log"
        failed=$((failed + 1))
    fi
    echo "$passed passed, $failed failed"
    FAILED=$failed
}

main "$@"

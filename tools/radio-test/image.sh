# Sourced by run.sh: assembles the guest's initramfs from Debian packages.
# The base image (kernel modules, busybox, BlueZ tools, mosquitto) is cached by its inputs;
# the edge binary and /init go in a second, small archive made on every run, which the
# kernel unpacks over the first.

MODULES="hci_vhci ecb cmac algif_hash algif_skcipher"

# copy_libs DEST FILE...: the shared libraries ldd finds for each file, at their own paths.
copy_libs() {
    local dest=$1 f lib; shift
    for f in "$@"; do
        for lib in $(ldd "$f" | grep -o '/[^ ]*'); do
            [ -e "$dest$lib" ] && continue
            mkdir -p "$dest$(dirname "$lib")"
            cp -L "$lib" "$dest$lib"
        done
    done
}

# make_cpio DIR: a newc archive of DIR on stdout, with busybox's cpio (no host cpio needed).
make_cpio() {
    (cd "$1" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null)
}

# build_base ROOT KVER OUT: ROOT holds the unpacked packages, KVER is the kernel release.
build_base() {
    local root=$1 kver=$2 out=$3 work m tool
    work=$(mktemp -d)
    mkdir -p "$work"/{bin,usr/bin,usr/sbin,etc/mosquitto,proc,sys,dev,tmp,run,root,lib/modules}
    cp "$root/bin/busybox" "$work/bin/busybox"
    # The package ships no modules.dep; depmod on the unpacked tree makes one, so modprobe
    # can list each module's dependencies in load order.
    depmod -b "$root" "$kver"
    for m in $(for m in $MODULES; do modprobe -d "$root" -S "$kver" --show-depends "$m"; done |
               awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
        cp "$m" "$work/lib/modules/"
        basename "$m" >>"$work/lib/modules/order"
    done
    for tool in usr/bin/btvirt bin/hciconfig usr/bin/hcitool usr/bin/btmon; do
        cp "$root/$tool" "$work/usr/bin/"
        copy_libs "$work" "$root/$tool"
    done
    cp /usr/sbin/mosquitto "$work/usr/sbin/"
    cp /usr/bin/mosquitto_sub "$work/usr/bin/"
    copy_libs "$work" /usr/sbin/mosquitto /usr/bin/mosquitto_sub
    printf 'root:x:0:0:root:/root:/bin/sh\n' >"$work/etc/passwd"
    printf 'root:x:0:\n' >"$work/etc/group"
    printf 'user root\nlistener 1883 127.0.0.1\nallow_anonymous true\npersistence false\n' \
        >"$work/etc/mosquitto/mosquitto.conf"
    make_cpio "$work" | gzip -1 >"$out.tmp"
    mv "$out.tmp" "$out"
    rm -rf "$work"
}

# build_run_archive EDGE INIT OUT: the edge (stripped) with its libraries, and /init;
# uncompressed, since it is made on every run.
build_run_archive() {
    local edge=$1 init=$2 out=$3 work
    work=$(mktemp -d)
    mkdir -p "$work/usr/bin"
    strip -o "$work/usr/bin/whereabouts-edge" "$edge"
    copy_libs "$work" "$edge"
    cp "$init" "$work/init"
    chmod 755 "$work/init"
    make_cpio "$work" >"$out"
    rm -rf "$work"
}

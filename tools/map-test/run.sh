#!/usr/bin/env bash
# make map-test: the live map in real headless Chromium (Debian's chromium and chromium-driver)
# driven by Selenium from PyPI, against a real broker and aggregator. Installs what is missing:
# the Debian packages with apt, Selenium and PyYAML (pinned) in a virtualenv cached under
# ~/.cache/whereabouts. Anything that cannot be installed fails the test with the reason.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${WHEREABOUTS_BIN:?set WHEREABOUTS_BIN to the directory of the built programs}"

need=()
for pair in chromium:/usr/bin/chromium chromium-driver:/usr/bin/chromedriver mosquitto:/usr/sbin/mosquitto \
            mosquitto-clients:/usr/bin/mosquitto_pub; do
    [ -e "${pair#*:}" ] || need+=("${pair%%:*}")
done
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    echo "map-test: installing ${need[*]}"
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" \
        || { echo "map-test: FAILED: cannot install ${need[*]} with apt"; exit 1; }
fi

venv=${HOME}/.cache/whereabouts/map-test-venv
requirements="$here/requirements.txt"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "map-test: FAILED: python3 -m venv did not work"; exit 1; }
    "$venv/bin/pip" install -q -r "$requirements" || { echo "map-test: FAILED: pip could not install $requirements"; exit 1; }
    cp "$requirements" "$venv/requirements.txt"
fi
if [ "${1:-}" = --bench ]; then shift; exec "$venv/bin/python" "$here/bench_map.py" "$@"; fi
exec "$venv/bin/python" "$here/test_map.py" "$@"

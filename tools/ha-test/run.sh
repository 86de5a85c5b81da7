#!/usr/bin/env bash
# make ha-test: the aggregator against a real Home Assistant (see ha_test.py for what it checks).
#
# Home Assistant is installed once into a virtualenv under ~/.cache/whereabouts, keyed by
# requirements.txt's hash: the pinned release, constrained by its own package_constraints.txt
# (read from the release's wheel), plus the packages of the integrations the test loads. Home
# Assistant then starts with --skip-pip and needs no network. Whatever cannot be set up fails
# the run with the reason; nothing is skipped.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
python=${HA_TEST_PYTHON:-python3.11}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/whereabouts
key=$(sha256sum "$here/requirements.txt" | cut -c1-12)
venv="$cache/ha-venv-$key"

command -v "$python" >/dev/null || { echo "ha-test: $python is not on PATH (Home Assistant 2024.3 needs Python 3.11)" >&2; exit 1; }
"$python" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' ||
    { echo "ha-test: $python is $("$python" --version), not 3.11" >&2; exit 1; }

# `.complete` is written last: an install cut short is started again from nothing.
if [ ! -f "$venv/.complete" ]; then
    echo "== installing Home Assistant into $venv (once)"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    release=$(grep -E '^homeassistant==' "$here/requirements.txt")
    "$venv/bin/pip" download --quiet --no-deps --dest "$venv/wheel" "$release"
    "$venv/bin/python" - "$venv/wheel" "$venv/constraints.txt" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/homeassistant-*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("homeassistant/package_constraints.txt"))
PY
    "$venv/bin/pip" install --quiet --constraint "$venv/constraints.txt" --requirement "$here/requirements.txt"
    rm -rf "$venv/wheel"
    touch "$venv/.complete"
fi

exec "$venv/bin/python" "$here/ha_test.py"

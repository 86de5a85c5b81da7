#!/usr/bin/env python3
"""Turn the Kolakowski flat's robot survey into what `whereabouts calibrate` and `evaluate` read.

    kolakowski-convert.py slice   SRC_DIR OUT_DIR           the committed fixture (flat.csv, anchors, layout)
    kolakowski-convert.py site    FIXTURE_DIR OUT.yaml      the flat as a site file
    kolakowski-convert.py survey  FIXTURE_DIR OUT_DIR PART  READINGS.jsonl + TRUTH.csv of PART

SRC_DIR is the upstream data set as kept in shared/data/kolakowski (anchors.csv, layout.csv,
calibration_df.csv); FIXTURE_DIR is Tests/Fixtures/kolakowski. PART is `first` or `second`:
the survey's rows split in time at its middle row (fit on the first half, score the second),
or `all`.

`slice` keeps every row of calibration_df.csv as `t,x,y,rssi_1..rssi_6` (t in Unix seconds,
x and y to the millimetre, RSSI to 0.01 dB, an empty field where the anchor did not hear the
tag): the robot's heading and the pandas index are dropped, nothing else is changed.

The site: one floor `flat` (9.07 x 7.10 x 2.7 m), one room `flat` (the box), the walls of
layout.csv as one polyline of 3 dB, the six anchors named `anchor-1` .. `anchor-6`, the site
file's default absorption and tx_ref. Readings: each row's RSSI per anchor, rounded to whole
dB, one batch per anchor per row, id `mac:02:6b:6f:6c:61:6b` (the tag; upstream gives no
address). Truth: each row's position (rows 1/3 s apart: TRUTH.csv interpolates between them).
"""
import csv
import json
import os
import sys

TAG = "mac:02:6b:6f:6c:61:6b"
FLAT = (9.07, 7.10, 2.7)
WALL_DB = 3
CARRIED = 1.3  # the tag on its pole, above the floor


def write_slice(src, out):
    os.makedirs(out, exist_ok=True)
    for name in ("anchors.csv", "layout.csv", "LICENSE.md"):
        with open(os.path.join(src, name), "rb") as f, open(os.path.join(out, name), "wb") as g:
            g.write(f.read())
    with open(os.path.join(src, "calibration_df.csv")) as f, open(os.path.join(out, "flat.csv"), "w") as g:
        rows = csv.DictReader(f)
        g.write("t,x,y,rssi_1,rssi_2,rssi_3,rssi_4,rssi_5,rssi_6\n")
        for r in rows:
            rssi = [r[f"rssi_{i}"] for i in range(1, 7)]
            rssi = ["" if v == "" else f"{float(v):.2f}" for v in rssi]
            g.write(f"{float(r['ts']) / 1e9:.3f},{float(r['x']):.3f},{float(r['y']):.3f}," + ",".join(rssi) + "\n")


def anchors(fixture):
    with open(os.path.join(fixture, "anchors.csv")) as f:
        return [(f"anchor-{r['id']}", float(r["x"]), float(r["y"]), float(r["z"])) for r in csv.DictReader(f)]


def write_site(fixture, out):
    with open(os.path.join(fixture, "layout.csv")) as f:
        layout = [(float(r["x"]), float(r["y"])) for r in csv.DictReader(f)]
    w, d, h = FLAT
    with open(out, "w") as f:
        f.write("# The Kolakowski flat (BLE RSS dataset for fingerprinting radio map calibration, CC BY 4.0).\n")
        f.write(f"floors:\n  - id: flat\n    name: Flat\n    bounds: [[0, 0, 0], [{w}, {d}, {h}]]\n")
        f.write(f"    rooms:\n      - {{ id: flat, name: Flat, points: [[0, 0], [{w}, 0], [{w}, {d}], [0, {d}]] }}\n")
        points = ", ".join(f"[{x}, {y}]" for x, y in layout)
        f.write(f"    walls:\n      - {{ points: [{points}], attenuation: {WALL_DB} }}\n")
        f.write("nodes:\n")
        for name, x, y, z in anchors(fixture):
            f.write(f"  - {{ name: {name}, point: [{x}, {y}, {z}], floors: [flat] }}\n")


def rows(fixture, part):
    with open(os.path.join(fixture, "flat.csv")) as f:
        all_rows = list(csv.DictReader(f))
    half = len(all_rows) // 2
    return {"first": all_rows[:half], "second": all_rows[half:], "all": all_rows}[part]


def write_survey(fixture, out, part):
    os.makedirs(out, exist_ok=True)
    names = [a[0] for a in anchors(fixture)]
    seq = {}
    with open(os.path.join(out, "READINGS.jsonl"), "w") as r, open(os.path.join(out, "TRUTH.csv"), "w") as t:
        t.write("t,x,y,z,floor\n")
        for row in rows(fixture, part):
            ts = float(row["t"])
            x = min(max(float(row["x"]), 0), FLAT[0])
            y = min(max(float(row["y"]), 0), FLAT[1])
            t.write(f"{ts:.3f},{x:.3f},{y:.3f},{CARRIED},flat\n")
            for i, node in enumerate(names):
                v = row[f"rssi_{i + 1}"]
                if v == "":
                    continue
                seq[node] = seq.get(node, -1) + 1
                reading = {"id": TAG, "rssi": round(float(v)), "t": ts, "kind": "mac"}
                batch = {"v": 1, "node": node, "seq": seq[node], "t": ts, "readings": [reading]}
                r.write(json.dumps(batch, separators=(",", ":")) + "\n")


def main(argv):
    if len(argv) == 3 and argv[0] == "slice":
        write_slice(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "site":
        write_site(argv[1], argv[2])
    elif len(argv) == 4 and argv[0] == "survey" and argv[3] in ("first", "second", "all"):
        write_survey(argv[1], argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

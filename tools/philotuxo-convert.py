#!/usr/bin/env python3
"""Turn the philotuxo hall's data into what `whereabouts calibrate` and `evaluate` read.

    philotuxo-convert.py site     CNF_DIR OUT.yaml            the hall as a site file
    philotuxo-convert.py survey   SURVEY_DIR OUT_DIR [SET…]   READINGS.jsonl + TRUTH.csv of the survey
    philotuxo-convert.py walk     TRACK.mbd OUT_DIR           READINGS.jsonl + TRUTH.csv of a walk

CNF_DIR is Tests/Fixtures/philotuxo/cnf (receivers in tetam.dev), SURVEY_DIR
Tests/Fixtures/philotuxo-survey (positions.csv, set_N/x_y_z.mbd), TRACK.mbd one of
Tests/Fixtures/philotuxo/trk. SET is set_1 and/or set_2 (default both).

The site is the one `whereabouts accuracy` builds (Philotuxo.site): one floor `tetam`
(20.66 x 17.64 m, the tetam.par limits), one room `lab`, the 12 receivers named by MAC, no
walls, the site file's default absorption and tx_ref. Readings become one batch per receiver
per 0.25 s, in time order, id `mac:e7:8f:13:56:24:ce`. A survey point's truth is two rows with
its position, at its first and last line (a stay); a walk's truth is its annotated position at
each distinct timestamp, clamped into the hall's bounds (straight_03's annotation reaches
y = -0.14 and 17.97 m, past tetam.par's limits, which TRUTH.csv refuses as off the floor).
"""
import csv
import json
import os
import re
import sys

BATCH = 0.25
HALL = (20.66, 17.64)


def device_id(mac):
    return "mac:" + ":".join(mac[i:i + 2] for i in range(0, 12, 2))


def receivers(cnf_dir):
    with open(os.path.join(cnf_dir, "tetam.dev")) as f:
        line = next(l for l in f if l.startswith("Dongles:"))
    return {mac: value[0] for mac, value in json.loads(line[len("Dongles:"):]).items()}


def write_site(cnf_dir, out):
    nodes = receivers(cnf_dir)
    with open(out, "w") as f:
        f.write("# The philotuxo hall (Position-Annotated BLE RSSI Dataset, CC0), as Philotuxo.site builds it.\n")
        f.write("floors:\n  - id: tetam\n    name: TETAM\n    bounds: [[0, 0, 0], [20.66, 17.64, 3]]\n")
        f.write("    rooms:\n      - { id: lab, name: Lab, points: [[0, 0], [20.66, 0], [20.66, 17.64], [0, 17.64]] }\n")
        f.write("nodes:\n")
        for mac, (x, y, z) in nodes.items():
            f.write(f"  - {{ name: \"{mac}\", point: [{x}, {y}, {z}], floors: [tetam] }}\n")


def write_readings(lines, out):
    """lines: (t, receiver, beacon, rssi) in any order; one batch per receiver per BATCH seconds."""
    lines.sort(key=lambda l: l[0])
    seq = {}
    with open(out, "w") as f:
        i = 0
        while i < len(lines):
            bucket = int(lines[i][0] // BATCH)
            j = i
            while j < len(lines) and int(lines[j][0] // BATCH) == bucket:
                j += 1
            by_node = {}
            for t, node, beacon, rssi in lines[i:j]:
                by_node.setdefault(node, []).append({"id": device_id(beacon), "rssi": rssi, "t": t, "kind": "mac"})
            for node, readings in by_node.items():
                seq[node] = seq.get(node, -1) + 1
                batch = {"v": 1, "node": node, "seq": seq[node], "t": readings[-1]["t"], "readings": readings}
                f.write(json.dumps(batch, separators=(",", ":")) + "\n")
            i = j


def parse_mbd(path):
    out = []
    with open(path) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) >= 4:
                out.append((float(fields[0]), fields[1], fields[2], int(fields[3]), fields[4:7]))
    return out


def survey(survey_dir, out_dir, sets):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(survey_dir, "positions.csv")) as f:
        points = [r for r in csv.DictReader(f) if r["set"] in sets]
    points.sort(key=lambda r: float(r["t_start"]))
    lines = []
    with open(os.path.join(out_dir, "TRUTH.csv"), "w") as truth:
        truth.write("t,x,y,z\n")
        for p in points:
            for t, node, beacon, rssi, _ in parse_mbd(os.path.join(survey_dir, p["file"])):
                lines.append((t, node, beacon, rssi))
            for t in (p["t_start"], p["t_end"]):
                truth.write(f"{t},{p['x']},{p['y']},{p['z']}\n")
    write_readings(lines, os.path.join(out_dir, "READINGS.jsonl"))


def walk(track, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    rows = parse_mbd(track)
    write_readings([r[:4] for r in rows], os.path.join(out_dir, "READINGS.jsonl"))
    rows.sort(key=lambda r: r[0])
    with open(os.path.join(out_dir, "TRUTH.csv"), "w") as truth:
        truth.write("t,x,y,z\n")
        last = None
        for t, _, _, _, (x, y, z) in rows:
            if t != last:
                x = min(max(float(x), 0.0), HALL[0])
                y = min(max(float(y), 0.0), HALL[1])
                truth.write(f"{t},{x},{y},{z}\n")
                last = t


def main(argv):
    if len(argv) >= 3 and argv[0] == "site":
        write_site(argv[1], argv[2])
    elif len(argv) >= 3 and argv[0] == "survey":
        survey(argv[1], argv[2], set(argv[3:]) or {"set_1", "set_2"})
    elif len(argv) == 3 and argv[0] == "walk":
        walk(argv[1], argv[2])
    else:
        sys.stderr.write(__doc__)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Turn the SPHERE house recordings into what `whereabouts calibrate --rooms` and `evaluate --rooms` read.

    sphere-convert.py site     OUT.yaml                     the house as a site without a floor plan
    sphere-convert.py session  SESSION_DIR OUT_DIR [--silent NODE]…
                                                            READINGS.jsonl + ROOMS.csv of one recording

SESSION_DIR is one of ../shared/data/sphere/train/NNNNN (acceleration.csv, location_0.csv).

The site has one floor `house` (the data set says which room, never which storey), the nine
labelled rooms, and the four receivers placed by room: Kitchen_AP in kitchen, Lounge_AP in
living, Study_AP in study, and Upstairs_AP in bath, the room the tag was most often in when
Upstairs_AP heard it loudest in the teach sessions 00001, 00003 and 00005 (upstairs is no room).

Each BLE packet carries several accelerometer samples, so the rows repeating one packet's RSSI
values are one reading per receiver that heard it, at the first row's time. Times are seconds
from the recording's start plus T0 (a Unix time in 2023), one batch per receiver per 0.25 s, id
`mac:c0:5e:00:00:00:01` (the wrist-worn tag). ROOMS.csv is annotator 0's stays
(location_0.csv). `--silent NODE` leaves that receiver's readings out (a receiver switched off).
"""
import csv
import json
import os
import sys

BATCH = 0.25
T0 = 1_700_000_000.0
DEVICE = "mac:c0:5e:00:00:00:01"
RECEIVERS = ["Kitchen_AP", "Lounge_AP", "Upstairs_AP", "Study_AP"]
ROOMS = ["bath", "bed1", "bed2", "hall", "kitchen", "living", "stairs", "study", "toilet"]
NODE_ROOMS = {"Kitchen_AP": "kitchen", "Lounge_AP": "living", "Upstairs_AP": "bath", "Study_AP": "study"}


def write_site(out):
    with open(out, "w") as f:
        f.write("# The SPHERE house (SPHERE Challenge 2016, University of Bristol; see Tests/Fixtures/sphere/README.md),\n")
        f.write("# as tools/sphere-convert.py writes it: no floor plan, rooms by name, receivers by room.\n")
        f.write("floors:\n  - id: house\n    rooms:\n")
        for room in ROOMS:
            f.write(f"      - {{ id: {room} }}\n")
        f.write("nodes:\n")
        for node in RECEIVERS:
            f.write(f"  - {{ name: {node}, room: {NODE_ROOMS[node]} }}\n")


def packets(path, silent):
    """(t, receiver, rssi) per receiver that heard each packet, in time order."""
    out, last = [], None
    with open(path) as f:
        for row in csv.DictReader(f):
            values = tuple(row[r] for r in RECEIVERS)
            if values == last:
                continue
            last = values
            t = T0 + float(row["t"])
            for r, v in zip(RECEIVERS, values):
                if v and r not in silent:
                    out.append((t, r, int(float(v))))
    return out


def write_readings(lines, out):
    seq = {}
    with open(out, "w") as f:
        i = 0
        while i < len(lines):
            bucket = int(lines[i][0] // BATCH)
            j = i
            while j < len(lines) and int(lines[j][0] // BATCH) == bucket:
                j += 1
            by_node = {}
            for t, node, rssi in lines[i:j]:
                by_node.setdefault(node, []).append({"id": DEVICE, "rssi": rssi, "t": round(t, 3), "kind": "mac"})
            for node, readings in by_node.items():
                seq[node] = seq.get(node, -1) + 1
                batch = {"v": 1, "node": node, "seq": seq[node], "t": readings[-1]["t"], "readings": readings}
                f.write(json.dumps(batch, separators=(",", ":")) + "\n")
            i = j


def write_rooms(path, out):
    with open(path) as f, open(out, "w") as rooms:
        rooms.write("t_start,t_end,room\n")
        for row in csv.DictReader(f):
            rooms.write(f"{T0 + float(row['start']):.2f},{T0 + float(row['end']):.2f},{row['name']}\n")


def session(session_dir, out_dir, silent):
    os.makedirs(out_dir, exist_ok=True)
    write_readings(packets(os.path.join(session_dir, "acceleration.csv"), silent), os.path.join(out_dir, "READINGS.jsonl"))
    write_rooms(os.path.join(session_dir, "location_0.csv"), os.path.join(out_dir, "ROOMS.csv"))


def main(argv):
    if len(argv) == 2 and argv[0] == "site":
        write_site(argv[1])
    elif len(argv) >= 3 and argv[0] == "session" and len(argv) % 2 == 1:
        flags = argv[3:]
        if any(flags[k] != "--silent" or flags[k + 1] not in RECEIVERS for k in range(0, len(flags), 2)):
            sys.exit("sphere-convert.py: --silent takes one of " + ", ".join(RECEIVERS))
        session(argv[1], argv[2], set(flags[1::2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

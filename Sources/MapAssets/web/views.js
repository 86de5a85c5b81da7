// The devices table, the focused device's details, node health and calibration.
"use strict";

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text == null ? "" : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function fixed(v, digits) { return typeof v === "number" && isFinite(v) ? v.toFixed(digits) : "—"; }

const views = {
  /// Every device, filtered by name or room (either's id or name); a click focuses it.
  devices() {
    const filter = document.getElementById("device-filter").value.trim().toLowerCase();
    const body = document.querySelector("#devices-table tbody");
    const rows = [];
    const sorted = [...app.devices.values()].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    for (const d of sorted) {
      const room = roomName(d.room);
      const haystack = `${d.label} ${d.id} ${d.room} ${room}`.toLowerCase();
      if (filter && !haystack.includes(filter)) continue;
      const tr = document.createElement("tr");
      tr.setAttribute("data-device", d.id);
      if (d.room === "away") tr.className = "away";
      cell(tr, d.name || "");
      cell(tr, d.id, "id");
      const roomCell = cell(tr, room);
      roomCell.setAttribute("data-room", d.room);
      cell(tr, d.zones.map(zoneName).join(", "));
      const floor = app.site.floors.find((f) => f.id === d.floor);
      cell(tr, floor ? floor.name : d.floor || "");
      cell(tr, fixed(d.confidence, 2));
      const n = d.nearest;
      cell(tr, n && n.node ? `${n.node} (${n.proximity}, ${fixed(n.distance, 1)} m)` : "—");
      cell(tr, ago(d.t));
      rows.push(tr);
    }
    body.replaceChildren(...rows);
  },

  /// The focused device's details, with the room probabilities when the engine gives them.
  focus(d) {
    const box = document.getElementById("focus");
    if (!d) { box.replaceChildren(); return; }
    const dl = document.createElement("dl");
    dl.setAttribute("data-device", d.id);
    const add = (k, v) => {
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd"); dd.textContent = v == null ? "" : String(v);
      dl.append(dt, dd);
    };
    add("Name", d.name || "—");
    add("Id", d.id);
    add("Room", roomName(d.room));
    add("Zones", d.zones.map(zoneName).join(", ") || "—");
    add("Position", d.x == null ? "—" : `${fixed(d.x, 2)}, ${fixed(d.y, 2)} m`);
    add("Confidence", fixed(d.confidence, 2));
    if (d.nearest && d.nearest.node) add("Nearest node", `${d.nearest.node}, ${d.nearest.proximity} (${fixed(d.nearest.distance, 1)} m)`);
    if (d.rooms) {
      const probabilities = Object.entries(d.rooms).sort((a, b) => b[1] - a[1])
        .map(([room, p]) => `${roomName(room)} ${Math.round(p * 100)} %`).join(", ");
      add("Room probability", probabilities);
    }
    add("Last seen", ago(d.t));
    box.replaceChildren(dl);
  },

  nodes(nodes) {
    const body = document.querySelector("#nodes-table tbody");
    body.replaceChildren(...nodes.map((n) => {
      const tr = document.createElement("tr");
      tr.setAttribute("data-node", n.name);
      cell(tr, n.name);
      cell(tr, n.status, n.status === "online" ? "" : "error");
      cell(tr, ago(n.last_heard));
      cell(tr, fixed(n.readings_per_s, 1));
      cell(tr, n.readings);
      cell(tr, n.missed_batches);
      cell(tr, n.restarts);
      cell(tr, n.clock_offset == null ? "—" : `${fixed(n.clock_offset * 1000, 0)} ms`);
      return tr;
    }));
  },

  /// The node beacon calibration (`/api/calibration`) and the node-to-node matrix.
  async calibration() {
    let c;
    try { c = await api("/api/calibration"); } catch (e) {
      document.getElementById("calibration-summary").textContent = e.message;
      return;
    }
    const summary = document.getElementById("calibration-summary");
    summary.textContent = c.error
      ? `No fit yet: ${c.error} (${c.readings} beacon readings).`
      : `Fitted from ${c.links} links and ${c.readings} readings: absorption ${c.absorption}, beacon level ${c.beacon_level} dBm.`;
    const body = document.querySelector("#calibration-nodes tbody");
    body.replaceChildren(...(c.nodes || []).map((n) => {
      const tr = document.createElement("tr");
      tr.setAttribute("data-node", n.name);
      cell(tr, n.name); cell(tr, n.calibrated ? "yes" : "no"); cell(tr, n.rx_adj == null ? "—" : fixed(n.rx_adj, 1));
      cell(tr, n.links_in); cell(tr, n.links_out);
      return tr;
    }));
    const names = app.site.nodes.map((n) => n.name);
    const links = new Map((c.matrix || []).map((l) => [`${l.from}\u0000${l.to}`, l]));
    const head = document.createElement("tr");
    cell(head, "heard by → / beacon of ↓");
    for (const n of names) cell(head, n);
    document.querySelector("#matrix thead").replaceChildren(head);
    document.querySelector("#matrix tbody").replaceChildren(...names.map((from) => {
      const tr = document.createElement("tr");
      tr.setAttribute("data-node", from);
      cell(tr, from);
      for (const to of names) {
        const l = links.get(`${from}\u0000${to}`);
        cell(tr, from === to ? "·" : l ? `${fixed(l.rssi, 1)} (${l.count})` : "—");
      }
      return tr;
    }));
  },
};

document.getElementById("device-filter").addEventListener("input", () => views.devices());
document.querySelector("#devices-table tbody").addEventListener("click", (e) => {
  const row = e.target.closest("tr[data-device]");
  if (row) focusDevice(row.getAttribute("data-device"));
});
document.getElementById("maps").addEventListener("click", (e) => {
  const marker = e.target.closest && e.target.closest("g.device[data-device]");
  if (marker) focusDevice(marker.getAttribute("data-device"));
});

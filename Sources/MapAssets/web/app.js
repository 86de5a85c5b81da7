// The page's state and its link to the aggregator: the token, the JSON API and the live
// stream (server-sent events read with fetch, so that the token goes in a header).
"use strict";

const TOKEN_KEY = "whereabouts.token";
const TRAIL = 12;

const app = {
  site: null,
  roomNames: new Map(),
  zoneNames: new Map(),
  deviceNames: new Map(),
  devices: new Map(),
  dirty: new Set(),
  plans: new Map(),
  floor: null,
  focused: null,
  nodes: [],
  view: "live",
  // Events received and the latest one's age (receipt less its `t`), for benchmarks.
  stats: { events: 0, lastLag: null },
};
window.whereabouts = app;

/// A GET of the API with the token; a 401 asks for a token and throws.
async function api(path) {
  const headers = {};
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(path, { headers, cache: "no-store" });
  if (r.status === 401) { askToken(token ? "That token was refused." : ""); throw new Error("token required"); }
  if (!r.ok) throw new Error(`${r.status}: ${(await r.text()).trim()}`);
  return r.json();
}

function askToken(message) {
  setStatus("error", "token required");
  document.getElementById("token-error").textContent = message || "";
  document.getElementById("token-dialog").hidden = false;
  document.getElementById("token-input").focus();
}

function setStatus(state, text) {
  const s = document.getElementById("status");
  s.setAttribute("data-state", state);
  s.textContent = text;
}

function roomName(id) { return id === "away" ? "away" : (app.roomNames.get(id) || id || ""); }
function zoneName(id) { return app.zoneNames.get(id) || app.roomNames.get(id) || id; }

async function start() {
  try {
    app.site = await api("/api/site");
  } catch (e) {
    if (e.message !== "token required") setStatus("error", e.message);
    return;
  }
  for (const f of app.site.floors) for (const r of f.rooms) app.roomNames.set(r.id, r.name || r.id);
  for (const z of app.site.zones) app.zoneNames.set(z.id, z.name || z.id);
  for (const d of app.site.devices) if (d.name) app.deviceNames.set(d.id, d.name);
  const maps = document.getElementById("maps");
  maps.replaceChildren();
  for (const f of app.site.floors) app.plans.set(f.id, new FloorPlan(app.site, f, maps));
  const mark = floorTabs(document.getElementById("floor-tabs"), app.site.floors, selectFloor);
  app.markFloor = mark;
  selectFloor(app.site.floors.length ? app.site.floors[0].id : null);
  playback.init();
  stream();
  requestAnimationFrame(render);
  setInterval(refreshSlow, 2000);
}

function selectFloor(id) {
  app.floor = id;
  for (const [fid, plan] of app.plans) plan.show(fid === id);
  if (app.markFloor) app.markFloor(id);
}

/// The live stream: a snapshot, then every state and zone event published, and node health
/// each second. Reconnects a second after it ends.
async function stream() {
  const headers = {};
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    const r = await fetch("/api/live", { headers, cache: "no-store" });
    if (r.status === 401) { askToken("That token was refused."); return; }
    if (!r.ok) throw new Error(`live: ${r.status}`);
    setStatus("live", "live");
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      // One split per chunk (a chunk holds dozens of events under load), the tail kept.
      const blocks = buffer.split("\n\n");
      buffer = blocks.pop();
      for (const block of blocks) handleBlock(block);
    }
    setStatus("connecting", "reconnecting…");
  } catch (e) {
    setStatus("error", `no live stream (${e.message}); retrying`);
  }
  setTimeout(stream, 1000);
}

function handleBlock(block) {
  let event = "message", data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  if (!data) return;
  let value;
  try { value = JSON.parse(data); } catch { return; }
  if (event === "snapshot") snapshot(value);
  else if (event === "state") update(value);
  else if (event === "zone") zoneEvent(value);
  else if (event === "nodes") nodeHealth(value);
}

function snapshot(states) {
  const ids = new Set(states.map((s) => s.id));
  for (const id of app.devices.keys()) if (!ids.has(id)) { app.devices.delete(id); app.dirty.add(id); }
  for (const s of states) update(s);
}

/// A device's state (as `devices/<id>/state` carries it).
function update(s) {
  if (typeof s !== "object" || s === null || typeof s.id !== "string") return;
  app.stats.events += 1;
  if (typeof s.t === "number") app.stats.lastLag = Date.now() / 1000 - s.t;
  let d = app.devices.get(s.id);
  if (!d) { d = { id: s.id, trail: [] }; app.devices.set(s.id, d); }
  // Field by field, not Object.assign of a fresh object: 2,000 events a second make garbage.
  const name = s.name || app.deviceNames.get(s.id) || null;
  d.name = name; d.room = s.room || "away"; d.floor = s.floor || null;
  d.zones = Array.isArray(s.zones) ? s.zones : [];
  d.x = typeof s.x === "number" ? s.x : null; d.y = typeof s.y === "number" ? s.y : null;
  d.confidence = typeof s.confidence === "number" ? s.confidence : 0;
  d.t = s.t; d.since = s.since; d.nearest = s.nearest || null;
  d.rooms = s.rooms && typeof s.rooms === "object" ? s.rooms : null;
  d.label = name || s.id; d.received = Date.now();
  if (d.x != null && d.floor) {
    const last = d.trail[d.trail.length - 1];
    if (last && last.floor !== d.floor) d.trail = [];
    d.trail.push([d.x, d.y]);
    d.trail[d.trail.length - 1].floor = d.floor;
    if (d.trail.length > TRAIL) d.trail.shift();
  } else {
    d.trail = [];
  }
  app.dirty.add(s.id);
}

function zoneEvent(e) {
  if (typeof e !== "object" || e === null) return;
  const list = document.getElementById("events");
  const li = document.createElement("li");
  const who = app.deviceNames.get(e.device) || (app.devices.get(e.device) || {}).name || e.device;
  li.textContent = `${new Date((e.t || 0) * 1000).toLocaleTimeString()} ${who} ${e.type === "enter" ? "entered" : "left"} ${zoneName(e.zone)}`;
  li.setAttribute("data-zone", String(e.zone));
  list.prepend(li);
  while (list.children.length > 12) list.lastChild.remove();
}

function nodeHealth(nodes) {
  if (!Array.isArray(nodes)) return;
  app.nodes = nodes;
  for (const plan of app.plans.values()) plan.updateNodes(nodes);
  if (app.view === "nodes") views.nodes(nodes);
}

/// Moves what changed since the last frame: one DOM write per changed device.
function render() {
  if (app.dirty.size) {
    for (const id of app.dirty) {
      const d = app.devices.get(id);
      for (const plan of app.plans.values()) {
        if (d) plan.place(d, id === app.focused); else plan.remove(id);
      }
    }
    app.dirty.clear();
    if (app.focused) views.focus(app.devices.get(app.focused));
  }
  requestAnimationFrame(render);
}

function refreshSlow() {
  if (app.view === "devices") views.devices();
  if (app.view === "nodes") views.nodes(app.nodes);
  if (app.focused) views.focus(app.devices.get(app.focused));
}

/// Focuses a device: its floor's tab, its marker highlighted, its details beside the map.
function focusDevice(id) {
  const previous = app.focused;
  app.focused = id;
  if (previous) app.dirty.add(previous);
  app.dirty.add(id);
  const d = app.devices.get(id);
  showView("live");
  if (d && d.floor && app.plans.has(d.floor)) selectFloor(d.floor);
  views.focus(d);
}

function showView(name) {
  app.view = name;
  for (const b of document.querySelectorAll("#views button")) b.classList.toggle("active", b.getAttribute("data-view") === name);
  for (const v of document.querySelectorAll("main > .view")) v.hidden = v.id !== `view-${name}`;
  if (name === "devices") views.devices();
  if (name === "nodes") { views.nodes(app.nodes); views.calibration(); }
  if (name === "playback") playback.shown();
}

document.getElementById("views").addEventListener("click", (e) => {
  const view = e.target.getAttribute && e.target.getAttribute("data-view");
  if (view) showView(view);
});

document.getElementById("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  localStorage.setItem(TOKEN_KEY, document.getElementById("token-input").value.trim());
  document.getElementById("token-dialog").hidden = true;
  if (app.site) stream(); else start();
});

start();

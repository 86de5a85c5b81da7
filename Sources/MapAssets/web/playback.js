// Playback of stored tracks (`/api/track`) with their zone visits (`/api/visits`).
"use strict";

/// Points further apart than this are not joined: the device was not heard in between.
const GAP = 10;

const playback = {
  plans: new Map(),
  tracks: new Map(),
  visits: [],
  t0: 0, t1: 0, t: 0,
  playing: false,
  lastFrame: 0,
  shownPassed: -1,

  init() {
    const maps = document.getElementById("pb-maps");
    maps.replaceChildren();
    for (const f of app.site.floors) this.plans.set(f.id, new FloorPlan(app.site, f, maps));
    this.markFloor = floorTabs(document.getElementById("pb-floor-tabs"), app.site.floors, (id) => this.selectFloor(id));
    this.selectFloor(app.site.floors.length ? app.site.floors[0].id : null);
    const now = Date.now() / 1000;
    document.getElementById("pb-since").value = localInput(now - 3600);
    document.getElementById("pb-until").value = localInput(now);
    document.getElementById("pb-form").addEventListener("submit", (e) => { e.preventDefault(); this.load(); });
    document.getElementById("pb-play").addEventListener("click", () => this.toggle());
    document.getElementById("pb-slider").addEventListener("input", (e) => { this.pause(); this.seek(Number(e.target.value)); });
  },

  selectFloor(id) {
    for (const [fid, plan] of this.plans) plan.show(fid === id);
    this.markFloor(id);
    this.floor = id;
  },

  /// Fills the device list with what the database holds.
  async shown() {
    let stored;
    try { stored = await api("/api/history/devices"); } catch (e) { this.message(e.message); return; }
    const select = document.getElementById("pb-device");
    const keep = select.value;
    const options = [new Option("All devices", "")];
    for (const d of stored) {
      const name = d.name || app.deviceNames.get(d.id);
      options.push(new Option(name ? `${name} (${d.id})` : d.id, d.id));
    }
    select.replaceChildren(...options);
    select.value = keep;
  },

  message(text) { document.getElementById("pb-message").textContent = text; },

  async load() {
    this.pause();
    const device = document.getElementById("pb-device").value;
    const since = fromLocalInput(document.getElementById("pb-since").value);
    const until = fromLocalInput(document.getElementById("pb-until").value);
    const range = `since=${since}&until=${until}` + (device ? `&device=${encodeURIComponent(device)}` : "");
    let points, visits;
    try {
      [points, visits] = await Promise.all([api(`/api/track?${range}`), api(`/api/visits?${range}`)]);
    } catch (e) { this.message(e.message); return; }
    for (const plan of this.plans.values()) for (const id of [...plan.markers.keys()]) plan.remove(id);
    this.tracks = new Map();
    for (const p of points) {
      if (!this.tracks.has(p.device)) this.tracks.set(p.device, []);
      this.tracks.get(p.device).push(p);
    }
    this.changes = [];
    for (const [id, track] of this.tracks) {
      let last;
      for (const p of track) if (p.room !== last) { this.changes.push({ t: p.t, device: id, room: p.room }); last = p.room; }
    }
    this.changes.sort((a, b) => a.t - b.t);
    this.visits = visits;
    this.drawVisits();
    if (!points.length) { this.message("No track in that range."); return; }
    this.t0 = Math.min(...[...this.tracks.values()].map((t) => t[0].t));
    this.t1 = Math.max(...[...this.tracks.values()].map((t) => t[t.length - 1].t));
    this.message(`${points.length} points of ${this.tracks.size} device(s), ${this.visits.length} visits.`);
    const slider = document.getElementById("pb-slider");
    slider.min = this.t0; slider.max = this.t1; slider.disabled = false;
    document.getElementById("pb-play").disabled = false;
    this.shownPassed = -1;
    this.seek(this.t0);
  },

  /// Every device where it was at `t`, the rooms passed until then, the visits going on.
  seek(t) {
    this.t = Math.max(this.t0, Math.min(this.t1, t));
    document.getElementById("pb-slider").value = this.t;
    document.getElementById("pb-time").textContent = new Date(this.t * 1000).toLocaleString();
    for (const [id, track] of this.tracks) {
      const at = positionAt(track, this.t);
      const name = app.deviceNames.get(id) || id;
      const d = at
        ? { id, floor: at.floor, x: at.x, y: at.y, room: at.room || "away", confidence: at.confidence, label: name, trail: at.trail }
        : { id, floor: null, x: null, room: "away", label: name, trail: [] };
      for (const plan of this.plans.values()) plan.place(d, false);
      if (at && at.floor && this.tracks.size === 1 && at.floor !== this.floor) this.selectFloor(at.floor);
    }
    this.drawPassed();
    for (const row of document.querySelectorAll("#pb-visits tbody tr")) {
      const enter = Number(row.getAttribute("data-enter")), exit = row.getAttribute("data-exit");
      row.classList.toggle("active", enter <= this.t && (exit === "" || Number(exit) >= this.t));
    }
  },

  drawPassed() {
    const count = upperBound(this.changes, this.t);
    if (count === this.shownPassed) return;
    this.shownPassed = count;
    const several = this.tracks.size > 1;
    document.getElementById("pb-rooms").replaceChildren(...this.changes.slice(0, count).map((c) => {
      const li = document.createElement("li");
      li.setAttribute("data-room", c.room || "");
      li.setAttribute("data-device", c.device);
      const who = several ? `${app.deviceNames.get(c.device) || c.device}: ` : "";
      li.textContent = `${new Date(c.t * 1000).toLocaleTimeString()} ${who}${c.room ? roomName(c.room) : "unknown"}`;
      return li;
    }));
  },

  drawVisits() {
    document.querySelector("#pb-visits tbody").replaceChildren(...this.visits.map((v) => {
      const tr = document.createElement("tr");
      tr.setAttribute("data-zone", v.zone);
      tr.setAttribute("data-device", v.device);
      tr.setAttribute("data-enter", v.enter);
      tr.setAttribute("data-exit", v.exit == null ? "" : v.exit);
      cell(tr, app.deviceNames.get(v.device) || v.device);
      cell(tr, zoneName(v.zone));
      cell(tr, new Date(v.enter * 1000).toLocaleTimeString());
      cell(tr, v.exit == null ? "—" : new Date(v.exit * 1000).toLocaleTimeString());
      cell(tr, v.dwell == null ? "—" : `${Math.round(v.dwell)} s`);
      return tr;
    }));
  },

  toggle() { if (this.playing) this.pause(); else this.play(); },

  play() {
    if (this.t >= this.t1) this.seek(this.t0);
    this.playing = true;
    document.getElementById("pb-play").textContent = "Pause";
    document.getElementById("pb-play").setAttribute("data-state", "playing");
    this.lastFrame = performance.now();
    const step = (now) => {
      if (!this.playing) return;
      const speed = Number(document.getElementById("pb-speed").value) || 1;
      this.seek(this.t + ((now - this.lastFrame) / 1000) * speed);
      this.lastFrame = now;
      if (this.t >= this.t1) { this.pause(); document.getElementById("pb-play").setAttribute("data-state", "ended"); return; }
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  },

  pause() {
    this.playing = false;
    const b = document.getElementById("pb-play");
    b.textContent = "Play";
    b.setAttribute("data-state", "paused");
  },
};

/// Where a track is at `t`: interpolated between two points at most GAP apart, with its
/// last few points as a trail; null before its start or in a gap.
function positionAt(track, t) {
  const i = upperBound(track, t) - 1;
  if (i < 0) return null;
  const p = track[i], q = track[i + 1];
  if (t - p.t > GAP && !(q && q.t - p.t <= GAP)) return null;
  let x = p.x, y = p.y;
  if (q && q.floor === p.floor && q.t - p.t <= GAP && q.t > p.t) {
    const f = (t - p.t) / (q.t - p.t);
    x += (q.x - p.x) * f; y += (q.y - p.y) * f;
  }
  const trail = track.slice(Math.max(0, i - 10), i + 1).filter((r) => r.floor === p.floor).map((r) => [r.x, r.y]);
  trail.push([x, y]);
  return { x, y, floor: p.floor, room: p.room, confidence: p.confidence, trail };
}

/// How many items have `t <= value` (items sorted by t).
function upperBound(items, value) {
  let lo = 0, hi = items.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (items[mid].t <= value) lo = mid + 1; else hi = mid; }
  return lo;
}

function localInput(t) {
  const d = new Date(t * 1000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function fromLocalInput(text) { return (new Date(text).getTime() / 1000).toFixed(3); }

// Floor plans in SVG: rooms, walls, doors, zones, nodes and device markers.
// Every text that came from the site or MQTT goes in through textContent or an attribute,
// never as markup.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
/// Devices on a floor beyond which only the focused one has its circle and trail drawn.
const CROWD = 60;

function svgElement(name, attributes, parent) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

/// One floor's plan. Site metres are drawn with y up (as the site file's plan reads).
class FloorPlan {
  constructor(site, floor, container) {
    this.floor = floor;
    const [min, max] = floor.bounds;
    this.minX = min[0]; this.maxY = max[1];
    const pad = 0.6;
    this.svg = svgElement("svg", {
      class: "floor", "data-floor": floor.id,
      viewBox: `${-pad} ${-pad} ${max[0] - min[0] + 2 * pad} ${max[1] - min[1] + 2 * pad}`,
    }, container);
    this.layers = {};
    for (const name of ["rooms", "zones", "walls", "doors", "labels", "nodes", "trails", "devices"]) {
      this.layers[name] = svgElement("g", { class: name }, this.svg);
    }
    this.markers = new Map();
    this.drawRooms(floor);
    this.drawZones(site.zones.filter((z) => z.floor === floor.id));
    this.drawNodes(site.nodes.filter((n) => n.floors.length === 0 || n.floors.includes(floor.id)));
  }

  /// Screen coordinates of a site point.
  xy(p) { return [p[0] - this.minX, this.maxY - p[1]]; }
  points(ps) { return ps.map((p) => this.xy(p).map((v) => v.toFixed(3)).join(",")).join(" "); }

  drawRooms(floor) {
    for (const room of floor.rooms) {
      if (!room.points || room.points.length < 3) continue;
      svgElement("polygon", { class: "room", "data-room": room.id, points: this.points(room.points) }, this.layers.rooms);
      const [cx, cy] = this.xy(centroid(room.points));
      const label = svgElement("text", { class: "room-label", "data-room": room.id, x: cx, y: cy }, this.layers.labels);
      label.textContent = room.name || room.id;
    }
    for (const wall of floor.walls || []) {
      svgElement("polyline", { class: "wall", points: this.points(wall.points) }, this.layers.walls);
    }
    for (const door of floor.doors || []) {
      const [x, y] = this.xy(door.at);
      const d = svgElement("circle", { class: "door", cx: x, cy: y, r: 0.18 }, this.layers.doors);
      svgElement("title", {}, d).textContent = `door: ${door.between[0]} – ${door.between[1]}`;
    }
  }

  drawZones(zones) {
    for (const zone of zones) {
      svgElement("polygon", { class: "zone", "data-zone": zone.id, points: this.points(zone.points) }, this.layers.zones);
      const [cx, cy] = this.xy(centroid(zone.points));
      const label = svgElement("text", { class: "zone-label", "data-zone": zone.id, x: cx, y: cy + 0.35 }, this.layers.labels);
      label.textContent = zone.name || zone.id;
    }
  }

  drawNodes(nodes) {
    this.nodes = new Map();
    for (const node of nodes) {
      const [x, y] = this.xy(node.point);
      const g = svgElement("g", { class: "node", "data-node": node.name, transform: `translate(${x} ${y})` }, this.layers.nodes);
      svgElement("circle", { r: 0.2 }, g);
      const label = svgElement("text", { x: 0.28, y: 0.1 }, g);
      label.textContent = node.name;
      const title = svgElement("title", {}, g);
      title.textContent = node.name;
      this.nodes.set(node.name, { g, title });
    }
  }

  /// Online/offline, last heard and readings per second of each node.
  updateNodes(health) {
    for (const h of health) {
      const n = this.nodes.get(h.name);
      if (!n) continue;
      n.g.classList.toggle("offline", h.status !== "online");
      n.g.setAttribute("data-status", h.status);
      n.title.textContent = `${h.name}: ${h.status}, last heard ${ago(h.last_heard)}, ${h.readings_per_s} readings/s`;
    }
  }

  /// A device's marker: confidence circle, dot, name and short trail; created when first seen.
  marker(id) {
    let m = this.markers.get(id);
    if (m) return m;
    const trail = svgElement("polyline", { class: "trail", "data-device": id }, this.layers.trails);
    const g = svgElement("g", { class: "device", "data-device": id }, this.layers.devices);
    const conf = svgElement("circle", { class: "conf", r: 1 }, g);
    svgElement("circle", { class: "dot", r: 0.16 }, g);
    const label = svgElement("text", { x: 0.25, y: -0.2 }, g);
    m = { g, conf, label, trail };
    this.markers.set(id, m);
    return m;
  }

  /// Draws `d` here, or removes its marker when it is on another floor.
  place(d, focused) {
    if (d.floor !== this.floor.id || d.x == null) {
      if (d.room === "away" && this.markers.has(d.id)) { this.markers.get(d.id).g.setAttribute("data-state", "away"); return; }
      this.remove(d.id);
      return;
    }
    const m = this.marker(d.id);
    const [x, y] = this.xy([d.x, d.y]);
    m.g.setAttribute("transform", `translate(${x.toFixed(3)} ${y.toFixed(3)})`);
    // Only what changed: each write invalidates style.
    setIfChanged(m.g, "data-state", d.room === "away" ? "away" : "present");
    setIfChanged(m.g, "data-room", d.room || "");
    // A crowded floor draws confidence circles and trails for the focused device only: a
    // thousand translucent circles cost more to paint than a frame has, and say nothing.
    const crowded = this.markers.size > CROWD;
    if (crowded !== this.crowded) { this.crowded = crowded; this.svg.classList.toggle("crowded", crowded); }
    const detailed = focused || !crowded;
    if (detailed) m.conf.setAttribute("r", confidenceRadius(d.confidence).toFixed(2));
    let text = d.label.length > 18 ? `${d.label.slice(0, 17)}…` : d.label;
    // With a room posterior, the probability of the room it is in.
    const p = d.rooms && d.rooms[d.room];
    if (typeof p === "number") text += ` · ${Math.round(p * 100)} %`;
    if (m.label.textContent !== text) m.label.textContent = text;
    if (m.g.classList.contains("focused") !== focused) {
      m.g.classList.toggle("focused", focused);
      m.trail.classList.toggle("focused", focused);
    }
    if (detailed) m.trail.setAttribute("points", this.points(d.trail));
  }

  remove(id) {
    const m = this.markers.get(id);
    if (!m) return;
    m.g.remove(); m.trail.remove();
    this.markers.delete(id);
  }

  // An SVG element has no `hidden` property: the attribute itself.
  show(visible) { if (visible) this.svg.removeAttribute("hidden"); else this.svg.setAttribute("hidden", ""); }
}

/// Metres drawn around a fix: a visual cue from the engine's confidence (0…1), not a
/// measured error.
function confidenceRadius(c) { return 0.4 + (1 - Math.max(0, Math.min(1, c || 0))) * 2.6; }

function setIfChanged(el, name, value) { if (el.getAttribute(name) !== value) el.setAttribute(name, value); }

function centroid(ps) {
  let x = 0, y = 0;
  for (const p of ps) { x += p[0]; y += p[1]; }
  return [x / ps.length, y / ps.length];
}

/// "12 s ago" for a Unix time, "never" for null.
function ago(t) {
  if (t == null) return "never";
  const s = Math.max(0, Date.now() / 1000 - t);
  if (s < 90) return `${Math.round(s)} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return new Date(t * 1000).toLocaleString();
}

/// Floor tabs: one button per floor, calling `select(id)`.
function floorTabs(container, floors, select) {
  container.replaceChildren();
  const buttons = floors.map((f) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = f.name || f.id;
    b.setAttribute("data-floor", f.id);
    b.addEventListener("click", () => select(f.id));
    container.appendChild(b);
    return b;
  });
  return (id) => buttons.forEach((b) => b.classList.toggle("active", b.getAttribute("data-floor") === id));
}

import Positioning
import SiteModel
import Wire

/// The JSON bodies of `/api/site`, `/api/devices` and `/api/calibration`.
extension HTTPEndpoints {
    /// The node beacon calibration of everything heard since start, as `whereabouts calibrate`
    /// fits it: `{"absorption","beacon_level","links","readings","nodes":[{"name","calibrated",
    /// "rx_adj","links_in","links_out"}]}` (`rx_adj` null for a node not calibrated: it heard
    /// fewer than two links), or `{"error","readings"}` while no fit can be made.
    static func calibrationJSON(site: Site, links: NodeBeaconLinks, learned: SelfCalibrationSnapshot? = nil) -> [UInt8] {
        var w = JSONWriter()
        w.objectStart()
        switch NodeBeaconCalibration.fit(site: site, links: links) {
        case .failure(let failure):
            w.field("error", failure.description)
        case .success(let fit):
            w.field("absorption", fit.absorption, decimals: 2)
            w.field("beacon_level", fit.beaconLevel, decimals: 1)
            w.field("links", fit.links.count)
            w.key("nodes"); w.arrayStart()
            for node in site.nodes {
                let (inbound, outbound) = fit.links(of: node.name)
                w.objectStart()
                w.field("name", node.name)
                w.field("calibrated", fit.rxAdj[node.name] != nil)
                w.key("rx_adj")
                if let adj = fit.rxAdj[node.name] { w.value(adj, decimals: 1) } else { w.null() }
                w.field("links_in", inbound.count)
                w.field("links_out", outbound.count)
                w.objectEnd()
            }
            w.arrayEnd()
        }
        w.field("readings", links.total)
        // The node-to-node matrix: every link heard, even before a fit can be made.
        w.key("matrix"); w.arrayStart()
        for link in links.heard where site.nodes.indices.contains(link.from) && site.nodes.indices.contains(link.to) {
            w.objectStart()
            w.field("from", site.nodes[link.from].name); w.field("to", site.nodes[link.to].name)
            w.field("count", link.count); w.field("rssi", link.median, decimals: 1)
            w.objectEnd()
        }
        w.arrayEnd()
        if let learned { selfCalibrationJSON(learned, into: &w) }
        w.objectEnd()
        return w.bytes
    }

    /// `"self_calibration":{"mode","updates","floors":[{"floor","exponent","evidence"}],
    /// "nodes":[{"name","offset","evidence"}],"devices"}`: what the engine learned from traffic
    /// (`devices`: how many devices' power corrections it holds).
    static func selfCalibrationJSON(_ learned: SelfCalibrationSnapshot, into w: inout JSONWriter) {
        w.key("self_calibration"); w.objectStart()
        w.field("mode", learned.mode.rawValue)
        w.field("updates", learned.updates)
        w.key("floors"); w.arrayStart()
        for f in learned.floors {
            w.objectStart(); w.field("floor", f.floor); w.field("exponent", f.exponent, decimals: 2)
            w.field("evidence", f.evidence, decimals: 0); w.objectEnd()
        }
        w.arrayEnd()
        w.key("nodes"); w.arrayStart()
        for n in learned.nodes {
            w.objectStart(); w.field("name", n.name); w.field("offset", n.offset, decimals: 2)
            w.field("evidence", n.evidence, decimals: 0); w.objectEnd()
        }
        w.arrayEnd()
        w.field("devices", learned.devices.count)
        w.objectEnd()
    }

    static func devicesJSON(_ states: [String: DeviceUpdate]) -> [UInt8] {
        var w = JSONWriter(capacity: 256 * max(states.count, 1))
        w.arrayStart()
        for (_, u) in states.sorted(by: { $0.key < $1.key }) {
            w.objectStart()
            w.field("id", u.id)
            if let name = u.name { w.field("name", name) }
            w.field("room", u.room ?? "away")
            if let floor = u.floor { w.field("floor", floor) }
            w.key("zones"); w.arrayStart(); for z in u.zones { w.value(z) }; w.arrayEnd()
            // As the MQTT state says (`Publisher`): an away device's last position is not current.
            if u.room == nil || !u.x.isFinite {
                w.key("x"); w.null(); w.key("y"); w.null(); w.key("z"); w.null()
            } else {
                w.field("x", u.x, decimals: 2); w.field("y", u.y, decimals: 2); w.field("z", u.z, decimals: 2)
            }
            w.field("confidence", u.confidence, decimals: 2)
            w.field("fixes", u.fixes)
            w.key("t"); w.time(u.t)
            w.key("since"); w.time(u.since)
            w.key("nearest"); w.objectStart()
            w.key("node"); if let n = u.nearest { w.value(n.node) } else { w.null() }
            w.key("distance"); if let n = u.nearest { w.value(n.distance, decimals: 2) } else { w.null() }
            w.field("proximity", (u.nearest?.proximity ?? .unknown).rawValue)
            w.objectEnd()
            w.objectEnd()
        }
        w.arrayEnd()
        return w.bytes
    }

    /// The site as the map draws it: floors with bounds, rooms, walls and doors; zones; nodes;
    /// the devices the site names.
    static func siteJSON(_ site: Site) -> [UInt8] {
        var w = JSONWriter()
        w.objectStart()
        w.key("floors"); w.arrayStart()
        for f in site.floors { floor(f, into: &w) }
        w.arrayEnd()
        w.key("zones"); w.arrayStart()
        for z in site.zones {
            w.objectStart(); w.field("id", z.id); w.field("name", z.name); w.field("floor", z.floor)
            w.key("points"); points(z.points, into: &w); w.objectEnd()
        }
        w.arrayEnd()
        w.key("nodes"); w.arrayStart()
        for n in site.nodes {
            w.objectStart(); w.field("name", n.name)
            w.key("point"); w.arrayStart(); w.value(n.point.x); w.value(n.point.y); w.value(n.point.z); w.arrayEnd()
            w.key("floors"); w.arrayStart(); for f in n.floors { w.value(f) }; w.arrayEnd()
            w.objectEnd()
        }
        w.arrayEnd()
        w.key("devices"); w.arrayStart()
        for d in site.devices {
            w.objectStart(); w.field("id", d.id)
            w.key("name"); if let name = d.name { w.value(name) } else { w.null() }
            w.objectEnd()
        }
        w.arrayEnd()
        w.objectEnd()
        return w.bytes
    }

    private static func floor(_ f: Floor, into w: inout JSONWriter) {
        w.objectStart()
        w.field("id", f.id); w.field("name", f.name)
        w.key("bounds"); w.arrayStart()
        for p in [f.bounds.min, f.bounds.max] { w.arrayStart(); w.value(p.x); w.value(p.y); w.value(p.z); w.arrayEnd() }
        w.arrayEnd()
        w.key("rooms"); w.arrayStart()
        for r in f.rooms { w.objectStart(); w.field("id", r.id); w.field("name", r.name); w.key("points"); points(r.points, into: &w); w.objectEnd() }
        w.arrayEnd()
        w.key("walls"); w.arrayStart()
        for wall in f.walls {
            w.objectStart(); w.key("points"); points(wall.points, into: &w); w.field("attenuation", wall.attenuation, decimals: 1); w.objectEnd()
        }
        w.arrayEnd()
        w.key("doors"); w.arrayStart()
        for d in f.doors {
            w.objectStart()
            w.key("between"); w.arrayStart(); w.value(d.between.0); w.value(d.between.1); w.arrayEnd()
            w.key("at"); w.arrayStart(); w.value(d.at.x); w.value(d.at.y); w.arrayEnd()
            w.objectEnd()
        }
        w.arrayEnd()
        w.objectEnd()
    }

    private static func points(_ ps: [Point2], into w: inout JSONWriter) {
        w.arrayStart()
        for p in ps { w.arrayStart(); w.value(p.x); w.value(p.y); w.arrayEnd() }
        w.arrayEnd()
    }
}

import HTTP
import Positioning
import Storage
import Wire
import SiteModel

/// `/metrics`, `/healthz`, `/api/devices` and `/api/site` over the HTTP module.
final class HTTPEndpoints: Sendable {
    private let server: HTTPServer

    init(address: String, token: String?, service: AggregatorService) throws {
        let site = service.settings.site
        let siteJSON = HTTPEndpoints.siteJSON(site)
        server = try HTTPServer(address: address, token: token) { [weak service] request in
            guard let service else { return HTTPResponse(status: 503, text: "stopping\n") }
            switch request.path {
            case "/metrics":
                return HTTPResponse(contentType: "text/plain; version=0.0.4; charset=utf-8", text: service.metrics.registry.render())
            case "/healthz":
                return HTTPEndpoints.health(service)
            case "/api/devices":
                return HTTPResponse(contentType: "application/json", body: service.snapshot { HTTPEndpoints.devicesJSON($0.states) })
            case "/api/site":
                return HTTPResponse(contentType: "application/json", body: siteJSON)
            case "/api/calibration":
                // The links are copied (copy on write) on the work thread; the fit runs here.
                let links = service.snapshot { $0.engine.beaconLinks }
                return HTTPResponse(contentType: "application/json", body: HTTPEndpoints.calibrationJSON(site: site, links: links))
            default:
                return HTTPResponse(status: 404, text: "not found: try /metrics, /healthz, /api/devices, /api/site, /api/calibration\n")
            }
        }
    }

    /// 200 when MQTT is connected, the database takes writes and readings arrived in the last
    /// minute; 503 with the failing checks otherwise.
    static func health(_ service: AggregatorService) -> HTTPResponse {
        var problems: [String] = []
        if !service.isConnected { problems.append("mqtt: not connected") }
        if let writer = service.writer, writer.statistics.status != .ok {
            problems.append("storage: \(writer.statistics.status.rawValue)")
        }
        let idle = service.secondsSinceLastMessage
        if idle > 60 { problems.append(idle.isFinite ? "readings: none for \(Int(idle)) s" : "readings: none yet") }
        return problems.isEmpty ? HTTPResponse(text: "ok\n")
            : HTTPResponse(status: 503, text: problems.joined(separator: "\n") + "\n")
    }

    /// The node beacon calibration of everything heard since start, as `whereabouts calibrate`
    /// fits it: `{"absorption","beacon_level","links","readings","nodes":[{"name","calibrated",
    /// "rx_adj","links_in","links_out"}]}` (`rx_adj` null for a node not calibrated: it heard
    /// fewer than two links), or `{"error","readings"}` while no fit can be made.
    static func calibrationJSON(site: Site, links: NodeBeaconLinks) -> [UInt8] {
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
        w.objectEnd()
        return w.bytes
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
            if u.room == nil {
                w.key("x"); w.null(); w.key("y"); w.null(); w.key("z"); w.null()
            } else {
                w.field("x", u.x, decimals: 2); w.field("y", u.y, decimals: 2); w.field("z", u.z, decimals: 2)
            }
            w.field("confidence", u.confidence, decimals: 2)
            w.key("t"); w.time(u.t)
            w.objectEnd()
        }
        w.arrayEnd()
        return w.bytes
    }

    static func siteJSON(_ site: Site) -> [UInt8] {
        var w = JSONWriter()
        func points(_ ps: [Point2]) {
            w.arrayStart()
            for p in ps { w.arrayStart(); w.value(p.x); w.value(p.y); w.arrayEnd() }
            w.arrayEnd()
        }
        w.objectStart()
        w.key("floors"); w.arrayStart()
        for f in site.floors {
            w.objectStart()
            w.field("id", f.id); w.field("name", f.name)
            w.key("bounds"); w.arrayStart()
            for p in [f.bounds.min, f.bounds.max] { w.arrayStart(); w.value(p.x); w.value(p.y); w.value(p.z); w.arrayEnd() }
            w.arrayEnd()
            w.key("rooms"); w.arrayStart()
            for r in f.rooms { w.objectStart(); w.field("id", r.id); w.field("name", r.name); w.key("points"); points(r.points); w.objectEnd() }
            w.arrayEnd()
            w.objectEnd()
        }
        w.arrayEnd()
        w.key("zones"); w.arrayStart()
        for z in site.zones { w.objectStart(); w.field("id", z.id); w.field("floor", z.floor); w.key("points"); points(z.points); w.objectEnd() }
        w.arrayEnd()
        w.key("nodes"); w.arrayStart()
        for n in site.nodes {
            w.objectStart(); w.field("name", n.name)
            w.key("point"); w.arrayStart(); w.value(n.point.x); w.value(n.point.y); w.value(n.point.z); w.arrayEnd()
            w.objectEnd()
        }
        w.arrayEnd()
        w.objectEnd()
        return w.bytes
    }
}

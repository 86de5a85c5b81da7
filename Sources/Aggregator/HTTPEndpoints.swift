import HTTP
import MapAssets
import Metrics
import Positioning
import Storage
import Wire
import SiteModel

/// What the aggregator serves over HTTP: `/metrics`, `/healthz`, the JSON API, the live event
/// stream and the map's page (docs/map.md).
///
/// The page's own files are served to anyone who can reach the port (they hold no data: the
/// page asks for the token); everything else obeys the token when one is set. Every answer
/// is counted by route and status in `whereabouts_http_responses_total`.
final class HTTPEndpoints: Sendable {
    private let server: HTTPServer
    private let nodes: NodeHealthFeed
    private let live: LiveFeed

    /// Paths of the page's files; `/` is `index.html`.
    static let pagePaths: Set<String> = Set(MapAssets.files.keys.map { "/" + $0 } + ["/"])

    init(address: String, token: String?, service: AggregatorService) throws {
        let live = service.live
        let responses = service.metrics.registry.counter("whereabouts_http_responses_total",
                                                         "HTTP answers by route and status (refusals included).",
                                                         labels: ["route", "code"])
        HTTPEndpoints.register(live, in: service.metrics.registry)
        nodes = NodeHealthFeed(take: { [weak service] in service?.snapshot { NodeHealthFeed.samples($0) } },
                               publish: { live.broadcast(event: "nodes", data: $0) })
        self.live = live
        let context = Context(site: service.settings.site, siteJSON: HTTPEndpoints.siteJSON(service.settings.site),
                              database: service.settings.database, nodes: nodes)
        server = try HTTPServer(address: address, token: token, open: HTTPEndpoints.pagePaths,
                                observe: { request, status in responses.labels(HTTPEndpoints.route(request.path), String(status)).add() }) {
            [weak service] request in
            guard let service else { return HTTPResponse(status: 503, text: "stopping\n") }
            return HTTPEndpoints.page(request.path) ?? HTTPEndpoints.answer(request, service: service, context: context)
        }
    }

    /// What the handler needs besides the service, made once.
    struct Context: Sendable {
        let site: Site
        let siteJSON: [UInt8]
        let database: String?
        let nodes: NodeHealthFeed
    }

    /// Everything but the page's files, on the connection's thread.
    static func answer(_ request: HTTPRequest, service: AggregatorService, context: Context) -> HTTPResponse {
        switch request.path {
        case "/metrics":
            return HTTPResponse(contentType: "text/plain; version=0.0.4; charset=utf-8", text: service.metrics.registry.render())
        case "/healthz": return health(service)
        case "/api/devices": return json(service.snapshot { devicesJSON($0.states) })
        case "/api/site": return json(context.siteJSON)
        case "/api/calibration":
            // The links are copied (copy on write) on the work thread; the fit runs here.
            let (links, learned) = service.snapshot { ($0.engine.beaconLinks, $0.engine.calibrationSnapshot()) }
            return json(calibrationJSON(site: context.site, links: links, learned: learned))
        case "/api/nodes": return json(context.nodes.current)
        case "/api/live": return stream(service)
        case "/api/track": return HistoryAPI.track(request.query, database: context.database, now: now())
        case "/api/visits": return HistoryAPI.visits(request.query, database: context.database, now: now())
        case "/api/history/devices": return HistoryAPI.devices(database: context.database)
        default: return HTTPResponse(status: 404, text: "not found: try /, /metrics, /healthz or /api/… (docs/map.md)\n")
        }
    }

    /// Ends the live streams and the node sampler (the aggregator stopping).
    func stop() {
        nodes.stop()
        live.close()
    }

    static func json(_ body: [UInt8]) -> HTTPResponse {
        var r = HTTPResponse(contentType: "application/json", body: body)
        r.headers = [("Cache-Control", "no-store")]
        return r
    }

    /// `/api/live`: a snapshot of every device, then what is published, as it is published.
    static func stream(_ service: AggregatorService) -> HTTPResponse {
        let stream = service.snapshot { core in service.live.subscribe(snapshot: devicesJSON(core.states)) }
        guard let stream else { return HTTPResponse(status: 503, text: "too many live pages (\(LiveFeed.maxClients)); close one\n") }
        return HTTPResponse(stream: stream)
    }

    /// One of the page's files, or nil for any other path.
    static func page(_ path: String) -> HTTPResponse? {
        let name = path == "/" ? "index.html" : String(path.dropFirst())
        guard path.hasPrefix("/"), let bytes = MapAssets.files[name] else { return nil }
        var r = HTTPResponse(contentType: MapAssets.contentType(name), body: bytes)
        // The page is part of this binary: it changes only with a new aggregator.
        r.headers = [("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
                     ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'"),
                     ("Referrer-Policy", "no-referrer")]
        return r
    }

    /// The metric label of a path: a bounded set, whatever is requested.
    static func route(_ path: String) -> String {
        if pagePaths.contains(path) { return "page" }
        switch path {
        case "/metrics", "/healthz", "/api/devices", "/api/site", "/api/calibration", "/api/nodes", "/api/live",
             "/api/track", "/api/visits", "/api/history/devices":
            return path
        default: return "other"
        }
    }

    private static func register(_ live: LiveFeed, in registry: Registry) {
        registry.collect("whereabouts_http_live_clients", "Pages connected to the live stream.") { [([], Double(live.clientCount))] }
        registry.collect("whereabouts_http_live_dropped_total", "Live streams dropped because the page read too slowly.",
                         type: .counter) { [([], Double(live.drops))] }
        registry.collect("whereabouts_http_live_refused_total", "Live streams refused because too many pages were connected.",
                         type: .counter) { [([], Double(live.refused))] }
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
}

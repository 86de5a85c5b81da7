import Foundation
import MQTT
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The map's API against a real aggregator and broker: the live stream carries every state
/// the aggregator publishes, byte for byte and within a second of it; the history endpoints
/// answer from the real database and refuse bad requests with a 4xx that is counted; the
/// token rule holds for the API and the page's files are open.
@Test(.timeLimit(.minutes(2)))
func theLiveStreamCarriesEachPublishedStateWithinASecond() async throws {
    let dir = try faultDirectory("map-live")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let mqttStates = Mutex<[(t: Double, payload: [UInt8])]>([])
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/+/state"]) { m in
        let t = Date().timeIntervalSince1970
        mqttStates.withLock { $0.append((t, m.payload)) }
    }
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: dir.appendingPathComponent("t.db"), directory: dir)
    #expect(await poll(timeout: 10) { canConnect(port: aggregator.httpPort) }, "\(aggregator.log)")
    let traffic = try Traffic(broker: broker)
    let live = try LiveReader(port: aggregator.httpPort)
    // Keys walks between the two rooms, so its state keeps changing.
    for i in 0..<8 {
        traffic.change { $0.position = i % 2 == 0 ? Reference.east : Reference.west }
        try await Task.sleep(for: .seconds(1.5))
    }
    await traffic.stop()
    try await Task.sleep(for: .seconds(1))
    let events = live.events
    #expect(events.first?.name == "snapshot", "the stream starts with a snapshot: \(events.prefix(2))")
    // States published after the snapshot was taken (those before are in it), with a margin
    // for the MQTT copy's own transit.
    let since = (events.first?.t ?? .infinity) + 0.2
    let published = mqttStates.withLock { $0 }.filter { $0.t > since }
    #expect(published.count >= 4, "only \(published.count) states published\n\(aggregator.log)")
    var delays: [Double] = []
    for state in published {
        guard let seen = events.first(where: { $0.name == "state" && $0.data == state.payload }) else {
            Issue.record("a published state never reached the stream: \(String(decoding: state.payload, as: UTF8.self))")
            continue
        }
        delays.append(seen.t - state.t)
    }
    #expect((delays.max() ?? 99) < 1.0, "stream later than MQTT by \(delays)")
    live.close()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}

@Test(.timeLimit(.minutes(2)))
func theHistoryAPIAnswersFromTheDatabaseAndRefusesBadRequests() async throws {
    let dir = try faultDirectory("map-api")
    defer { try? FileManager.default.removeItem(at: dir) }
    let token = dir.appendingPathComponent("token")
    try "t0ken-for-map\n".write(to: token, atomically: true, encoding: .utf8)
    chmod(token.path, 0o600)
    let broker = try Broker()
    defer { broker.stop() }
    let aggregator = try AggregatorProcess(broker: broker, db: dir.appendingPathComponent("t.db"), directory: dir,
                                           extra: ["--http-token-file", token.path])
    let base = "http://127.0.0.1:\(aggregator.httpPort)"
    #expect(await poll(timeout: 10) { canConnect(port: aggregator.httpPort) }, "\(aggregator.log)")
    let traffic = try Traffic(broker: broker)
    let keys = Reference.keys.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    func get(_ path: String, token: String? = "t0ken-for-map") async -> (status: Int, text: String) {
        guard let r = await httpGet(base + path, token: token) else { return (0, "") }
        return (r.status, String(decoding: r.body, as: UTF8.self))
    }
    var track = (status: 0, text: "")
    for _ in 0..<40 where !track.text.contains("\"room\":\"") {
        try await Task.sleep(for: .milliseconds(500))
        track = await get("/api/track?device=\(keys)&since=-5m")
    }
    #expect(track.status == 200 && track.text.hasPrefix("[") && track.text.contains("\"device\":\"\(Reference.keys)\""), "\(track)")
    let geo = await get("/api/track?device=\(keys)&since=-5m&format=geojson")
    #expect(geo.status == 200 && geo.text.contains("\"FeatureCollection\""), "\(geo)")
    #expect(await get("/api/visits?device=\(keys)&since=-5m").status == 200)
    #expect(await get("/api/history/devices").text.contains(Reference.keys))
    // Refusals: each a clear 4xx.
    #expect(await get("/api/devices", token: nil).status == 401)
    #expect(await get("/api/devices", token: "wrong").status == 401)
    #expect(await get("/api/live", token: "wrong").status == 401)
    let badTime = await get("/api/track?since=yesterday-ish")
    #expect(badTime.status == 400 && badTime.text.contains("since"), "\(badTime)")
    #expect(await get("/api/track?since=now&until=-1h").status == 400)
    #expect(await get("/api/track?since=-40d").status == 413)
    #expect(await get("/api/track?device=iBeacon:nobody&since=-1h").status == 404)
    #expect(await get("/api/track?format=xml").status == 400)
    #expect(await get("/api/track?device=" + String(repeating: "x", count: 5000)).status == 414)
    // The page itself needs no token (it holds no data and asks for one).
    let page = await get("/", token: nil)
    #expect(page.status == 200 && page.text.contains("<script src=\"app.js\">"), "\(page.status)")
    let metrics = await get("/metrics").text
    for line in ["whereabouts_http_responses_total{route=\"/api/track\",code=\"400\"} 3",
                 "whereabouts_http_responses_total{route=\"/api/track\",code=\"413\"} 1",
                 "whereabouts_http_responses_total{route=\"/api/devices\",code=\"401\"} 2"] {
        #expect(metrics.contains(line), "no '\(line)' in /metrics")
    }
    await traffic.stop()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}

/// `/api/live` read over a plain socket (HTTP/1.0: no chunked framing), each event stamped
/// with the wall time its end arrived.
final class LiveReader: @unchecked Sendable {
    struct Event: CustomStringConvertible {
        var name: String, data: [UInt8], t: Double
        var description: String { "\(name): \(String(decoding: data.prefix(80), as: UTF8.self))" }
    }

    private let fd: Int32
    private let received = Mutex<[Event]>([])
    private let stopped = Atomic<Bool>(false)

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { Glibc.close(fd); throw HarnessError("cannot connect to port \(port)") }
        let request = "GET /api/live HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        Thread { [self] in read() }.start()
    }

    var events: [Event] { received.withLock { $0 } }

    func close() { stopped.store(true, ordering: .relaxed); shutdown(fd, Int32(SHUT_RDWR)) }

    private func read() {
        var pending: [UInt8] = []
        var headerDone = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !stopped.load(ordering: .relaxed) {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            let t = Date().timeIntervalSince1970
            pending += buffer[0..<n]
            if !headerDone, let end = find(pending, Array("\r\n\r\n".utf8)) { pending.removeFirst(end + 4); headerDone = true }
            guard headerDone else { continue }
            while let end = find(pending, Array("\n\n".utf8)) {
                let block = Array(pending[..<end])
                pending.removeFirst(end + 2)
                if let e = Self.parse(block, t: t) { received.withLock { $0.append(e) } }
            }
        }
        Glibc.close(fd)
    }

    private static func parse(_ block: [UInt8], t: Double) -> Event? {
        var name = "message", data: [UInt8]?
        for line in block.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: Array("event: ".utf8)) { name = String(decoding: line.dropFirst(7), as: UTF8.self) }
            if line.starts(with: Array("data: ".utf8)) { data = Array(line.dropFirst(6)) }
        }
        return data.map { Event(name: name, data: $0, t: t) }
    }

    private func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] && Array(haystack[i..<i + needle.count]) == needle { return i }
        return nil
    }
}

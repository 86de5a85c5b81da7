import HTTP
import MQTT
import Synchronization

/// The map's live stream (`/api/live`): every device state and zone event the aggregator
/// publishes, as server-sent events, to each connected page.
///
/// `published` runs on the work queue for every message published; with no page connected it
/// costs one atomic load. Each page has its own bounded queue (`EventStream`): a page that
/// falls behind is dropped and counted, never waited for.
final class LiveFeed: Sendable {
    private let clients = Mutex<[EventStream]>([])
    private let connected = Atomic<Int>(0)
    private let dropCount = Atomic<UInt64>(0)
    private let refusedCount = Atomic<UInt64>(0)
    /// Pages streaming at once; more get 503 (each holds a connection and up to `queueBytes`).
    static let maxClients = 16
    /// Bytes queued for one page before it counts as too slow: about 3 s of 1,000 devices
    /// moving at 2 updates a second.
    static let queueBytes = 2 << 20

    /// Pages connected now.
    var clientCount: Int { connected.load(ordering: .relaxed) }
    /// Pages dropped because their queue filled.
    var drops: UInt64 { dropCount.load(ordering: .relaxed) }
    /// Pages refused because `maxClients` were connected.
    var refused: UInt64 { refusedCount.load(ordering: .relaxed) }

    /// A message the aggregator published: device states and zone events go to every page.
    func published(_ m: MQTTMessage) {
        guard connected.load(ordering: .relaxed) > 0 else { return }
        let event: StaticString
        if m.topic.hasSuffix("/state") { event = "state" } else if m.topic.hasSuffix("/events") { event = "zone" } else { return }
        broadcast(Self.frame(event: event, data: m.payload))
    }

    /// An event to every page.
    func broadcast(event: StaticString, data: [UInt8]) {
        guard connected.load(ordering: .relaxed) > 0 else { return }
        broadcast(Self.frame(event: event, data: data))
    }

    private func broadcast(_ frame: [UInt8]) {
        clients.withLock { clients in
            var ended = false
            for client in clients {
                switch client.send(frame) {
                case .queued: break
                case .dropped: dropCount.add(1, ordering: .relaxed); ended = true
                case .ended: ended = true
                }
            }
            if ended { remove(&clients) }
        }
    }

    /// A new page's stream, starting with `snapshot` (every device now); nil when
    /// `maxClients` are connected. Call on the work queue, so that no message published
    /// between the snapshot and the registration is lost or sent twice.
    func subscribe(snapshot: [UInt8]) -> EventStream? {
        clients.withLock { clients in
            remove(&clients)
            guard clients.count < Self.maxClients else { refusedCount.add(1, ordering: .relaxed); return nil }
            let stream = EventStream(capacity: Self.queueBytes, heartbeat: 5)
            stream.send(Array("retry: 1000\n\n".utf8))
            stream.send(Self.frame(event: "snapshot", data: snapshot))
            clients.append(stream)
            connected.store(clients.count, ordering: .relaxed)
            // A page that leaves is forgotten at the next publish, or here if none comes.
            stream.onEnd { [weak self] in self?.clients.withLock { self?.remove(&$0) } }
            return stream
        }
    }

    /// Ends every stream (the aggregator stopping).
    func close() {
        clients.withLock { clients in
            for c in clients { c.close() }
            clients.removeAll()
            connected.store(0, ordering: .relaxed)
        }
    }

    private func remove(_ clients: inout [EventStream]) {
        clients.removeAll { !$0.isOpen }
        connected.store(clients.count, ordering: .relaxed)
    }

    /// `event: <event>\ndata: <data>\n\n`: the data is one line of JSON (JSONWriter escapes
    /// every control character), so it needs no splitting.
    static func frame(event: StaticString, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 24)
        out.append(contentsOf: "event: ".utf8)
        event.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: "\ndata: ".utf8)
        out.append(contentsOf: data)
        out.append(contentsOf: "\n\n".utf8)
        return out
    }
}

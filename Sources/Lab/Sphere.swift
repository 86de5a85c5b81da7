import Positioning
import Wire
import SiteModel

/// The SPHERE house (Tests/Fixtures/sphere, from tools/sphere-convert.py): a site without a
/// floor plan, recordings of a wrist-worn tag with the room it was in. Rooms are taught on some
/// recordings and scored on others, never on the ones taught.
public enum Sphere {
    /// One recording: its readings in time order and its labels.
    public struct Session: Sendable {
        public var name: String
        public var readings: [(node: String, reading: Reading)]
        public var labels: RoomLabels
        public init(name: String, readings: [(node: String, reading: Reading)], labels: RoomLabels) {
            self.name = name; self.readings = readings; self.labels = labels
        }

        /// The recording without `silent`'s readings: a receiver switched off.
        public func silencing(_ silent: Set<String>) -> Session {
            var s = self
            s.readings = readings.filter { !silent.contains($0.node) }
            return s
        }
    }

    /// A recording from its READINGS.jsonl and ROOMS.csv texts; throws on a bad line of either.
    public static func session(name: String, readings text: String, rooms: String, site: Site) throws -> Session {
        var readings: [(node: String, reading: Reading)] = [], bad = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let batch = try Batch.decode(Array(line), badReadings: &bad)
            for r in batch.readings { readings.append((batch.node, r)) }
        }
        readings.sort { $0.reading.t < $1.reading.t }
        return Session(name: name, readings: readings, labels: try RoomLabels(csv: rooms, site: site))
    }

    /// Rooms right and room changes of one way of deciding rooms over the scored recordings.
    public struct RoomScore: Sendable, Equatable {
        public var checks = 0, right = 0
        public var changes = 0, labelledChanges = 0
        public init(checks: Int = 0, right: Int = 0, changes: Int = 0, labelledChanges: Int = 0) {
            self.checks = checks; self.right = right; self.changes = changes; self.labelledChanges = labelledChanges
        }
        public var share: Double { checks > 0 ? Double(right) / Double(checks) : .nan }
        /// Room changes per labelled one.
        public var changeRatio: Double { labelledChanges > 0 ? Double(changes) / Double(labelledChanges) : .nan }

        mutating func add(room: String?, label: String, after last: inout (room: String?, label: String)?) {
            checks += 1
            if room == label { right += 1 }
            if let l = last, l.room != room { changes += 1 }
            if let l = last, l.label != label { labelledChanges += 1 }
            last = (room, label)
        }

        public static func + (a: RoomScore, b: RoomScore) -> RoomScore {
            RoomScore(checks: a.checks + b.checks, right: a.right + b.right, changes: a.changes + b.changes,
                      labelledChanges: a.labelledChanges + b.labelledChanges)
        }
    }

    /// The taught tag's levels as the engine sees them (RSSI with rx_adj, less its reference power).
    static func samples(_ session: Session, site: Site) -> [RoomTeaching.Sample] {
        let index = Dictionary(site.nodes.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
        return session.readings.compactMap { node, r in
            guard let n = index[node] else { return nil }
            let tx = r.tx.map(Double.init) ?? site.positioning.txRefDefault
            return RoomTeaching.Sample(t: r.t, node: n, level: Double(r.rssi) + site.nodes[n].rxAdj - tx)
        }
    }

    /// Fingerprints taught on `sessions`, as `whereabouts calibrate --rooms` teaches them.
    public static func teach(_ sessions: [Session], site: Site) -> RoomFingerprintSet {
        RoomTeaching.teach(sessions: sessions.map { (samples($0, site: site), $0.labels) }, nodes: site.nodes.map(\.name),
                           window: site.positioning.window)
    }

    /// The engine's rooms over `session` (with `fingerprints` when given), scored at every update
    /// in a labelled span.
    public static func engineScore(_ session: Session, site: Site, fingerprints: RoomFingerprintSet?, step: Double) -> RoomScore {
        var taught = site
        taught.fingerprints = fingerprints
        let output = replay(session.readings, site: taught, locator: .default, step: step)
        var score = RoomScore(), last: (room: String?, label: String)?
        for u in output.updates {
            guard let label = session.labels.room(at: u.t) else { continue }
            score.add(room: u.room, label: label, after: &last)
        }
        return score
    }

    /// The strongest receiver's room, every second over the site's window: what a nearest-node
    /// tracker with no margin says.
    public static func strongestScore(_ session: Session, site: Site) -> RoomScore {
        let rooms = site.nodes.map(\.room)
        var score = RoomScore(), last: (room: String?, label: String)?
        RoomTeaching.forEachWindow(samples(session, site: site), nodeCount: rooms.count, window: site.positioning.window, step: 1) { end, means in
            guard let label = session.labels.room(at: end) else { return }
            var best = -1
            for n in means.indices where means[n].isFinite && (best < 0 || means[n] > means[best]) { best = n }
            score.add(room: best >= 0 ? rooms[best] : nil, label: label, after: &last)
        }
        return score
    }
}

import Wire
import SiteModel

/// Teach-in: fingerprints learned from a tag's readings while ROOMS.csv says which room it was in.
///
/// The readings are cut into windows of `window` seconds, one ending every `step` seconds, as
/// the engine smooths each node's RSSI over its window; a window counts for a room when ROOMS.csv
/// names that room at both its ends (a window across a room change teaches neither room). Per
/// room and node: the share of windows the node heard the tag in, and the mean and spread of the
/// window's mean level when it did.
public enum RoomTeaching {
    /// One reading of the taught tag: the node's index in `nodes`, and its level (RSSI with the
    /// node's `rx_adj`, less the tag's reference power).
    public struct Sample: Sendable, Equatable {
        public var t: Double, node: Int, level: Double
        public init(t: Double, node: Int, level: Double) { self.t = t; self.node = node; self.level = level }
    }

    /// Rooms with fewer windows than this are not taught (a few seconds say little).
    public static let minimumWindows = 5

    /// Fingerprints of every room `labels` names for at least `minimumWindows` windows.
    /// `samples` in time order; `nodes` the names their indices stand for.
    public static func teach(_ samples: [Sample], nodes: [String], labels: RoomLabels, window: Double,
                             step: Double = 1) -> RoomFingerprintSet {
        teach(sessions: [(samples, labels)], nodes: nodes, window: window, step: step)
    }

    /// As `teach(_:nodes:labels:window:step:)` over several recordings, each with its own labels
    /// (and clock): their windows add up.
    public static func teach(sessions: [(samples: [Sample], labels: RoomLabels)], nodes: [String], window: Double,
                             step: Double = 1) -> RoomFingerprintSet {
        var rooms: [String: [Tally]] = [:]
        var order: [String] = []
        for (samples, labels) in sessions {
            forEachWindow(samples, nodeCount: nodes.count, window: window, step: step) { end, means in
                guard let room = labels.room(at: end), labels.room(at: end - window) == room else { return }
                if rooms[room] == nil { rooms[room] = Array(repeating: Tally(), count: nodes.count); order.append(room) }
                for n in nodes.indices { rooms[room]![n].add(means[n]) }
            }
        }
        let heardAnywhere = nodes.indices.filter { n in rooms.values.contains { $0[n].heard > 0 } }
        var out: [RoomFingerprintSet.Room] = []
        for room in order {
            let tallies = rooms[room]!
            let windows = tallies.first?.windows ?? 0
            guard windows >= minimumWindows else { continue }
            out.append(.init(room: room, windows: windows, nodes: heardAnywhere.map { tallies[$0].level(node: nodes[$0]) }))
        }
        return RoomFingerprintSet(window: window, rooms: out)
    }

    /// Calls `body` with each window's end and per node its mean level (`-infinity`: not heard).
    public static func forEachWindow(_ samples: [Sample], nodeCount: Int, window: Double, step: Double,
                              _ body: (Double, [Double]) -> Void) {
        guard let first = samples.first?.t, let last = samples.last?.t, step > 0, window > 0 else { return }
        var sums = Array(repeating: 0.0, count: nodeCount), counts = Array(repeating: 0, count: nodeCount)
        var means = Array(repeating: -Double.infinity, count: nodeCount)
        var head = 0, tail = 0
        var end = first + window
        while end <= last + step {
            while head < samples.count, samples[head].t <= end {
                let s = samples[head]
                if s.node >= 0 && s.node < nodeCount { sums[s.node] += s.level; counts[s.node] += 1 }
                head += 1
            }
            while tail < head, samples[tail].t <= end - window {
                let s = samples[tail]
                if s.node >= 0 && s.node < nodeCount { sums[s.node] -= s.level; counts[s.node] -= 1 }
                tail += 1
            }
            for n in 0..<nodeCount { means[n] = counts[n] > 0 ? sums[n] / Double(counts[n]) : -.infinity }
            body(end, means)
            end += step
        }
    }

    /// One room and node's windows.
    struct Tally {
        var windows = 0, heard = 0
        var sum = 0.0, squares = 0.0

        mutating func add(_ level: Double) {
            windows += 1
            guard level.isFinite else { return }
            heard += 1; sum += level; squares += level * level
        }

        func level(node: String) -> RoomFingerprintSet.NodeLevel {
            guard heard > 0 else { return .init(node: node, heard: 0, level: -100, sd: RoomFingerprints.minimumSD) }
            let mean = sum / Double(heard)
            let sd = max(squares / Double(heard) - mean * mean, 0).squareRoot()
            return .init(node: node, heard: Double(heard) / Double(windows), level: mean, sd: max(sd, 0.1))
        }
    }
}

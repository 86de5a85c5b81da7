import Wire
import SiteModel

/// One recorded walk: readings in time order and the ground-truth path.
public struct Walk: Sendable {
    public var name: String
    public var readings: [(node: String, reading: Reading)]
    /// Ground truth, time-ordered: where the beacon was when each reading was taken.
    public var truth: [(t: Double, position: Point3)]

    public init(name: String, readings: [(node: String, reading: Reading)], truth: [(t: Double, position: Point3)]) {
        self.name = name; self.readings = readings; self.truth = truth
    }

    /// The true position at `t`, interpolated linearly; clamped at the ends.
    public func truth(at t: Double) -> Point3? {
        guard let first = truth.first, let last = truth.last else { return nil }
        if t <= first.t { return first.position }
        if t >= last.t { return last.position }
        var lo = 0, hi = truth.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if truth[mid].t <= t { lo = mid } else { hi = mid }
        }
        let a = truth[lo], b = truth[hi]
        let u = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
        return Point3(a.position.x + (b.position.x - a.position.x) * u,
                      a.position.y + (b.position.y - a.position.y) * u,
                      a.position.z + (b.position.z - a.position.z) * u)
    }
}

/// The Position-Annotated BLE RSSI Dataset (Daniş et al., CC0): receivers from
/// `cnf/tetam.dev`, walks from `trk/*.mbd`.
public enum Philotuxo {
    public struct FormatError: Error, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The receivers of `tetam.dev`: the JSON object after `Dongles:`, `mac → [[x, y, z], colour, alias]`.
    /// Nodes are named by MAC, as the track files name them.
    public static func receivers(devices text: String) throws(FormatError) -> [Node] {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Dongles:") }) else {
            throw FormatError(line: 0, message: "no 'Dongles:' line")
        }
        var nodes: [Node] = []
        var rest = line.dropFirst("Dongles:".count)
        while let key = quoted(&rest) {
            guard let lists = rest.firstRange(of: "[["), let end = rest[lists.upperBound...].firstIndex(of: "]") else {
                throw FormatError(line: 0, message: "receiver \(key) has no [x, y, z]")
            }
            let numbers = rest[lists.upperBound..<end].split(separator: ",").compactMap { Double($0.trimmingSpaces) }
            guard numbers.count == 3 else { throw FormatError(line: 0, message: "receiver \(key) has no [x, y, z]") }
            nodes.append(Node(name: String(key), point: Point3(numbers[0], numbers[1], numbers[2])))
            rest = rest[end...]
            _ = quoted(&rest)  // the alias
        }
        guard !nodes.isEmpty else { throw FormatError(line: 0, message: "no receivers after 'Dongles:'") }
        return nodes
    }

    /// A track file: `timestamp, receiver, beacon, rssi, x, y, z, orientation…` per line,
    /// sorted by time (the merged files are not quite in order).
    public static func walk(name: String, text: String) throws(FormatError) -> Walk {
        var rows: [(node: String, reading: Reading)] = []
        var truth: [(t: Double, position: Point3)] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: ",")
            if fields.isEmpty || line.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
            guard fields.count >= 7, let t = Double(fields[0]), let rssi = Int(fields[3].trimmingSpaces),
                  let x = Double(fields[4]), let y = Double(fields[5]), let z = Double(fields[6]) else {
                throw FormatError(line: number + 1, message: "expected timestamp,receiver,beacon,rssi,x,y,z,…")
            }
            rows.append((String(fields[1]), Reading(id: "mac:" + fields[2], rssi: rssi, t: t, kind: .mac)))
            truth.append((t, Point3(x, y, z)))
        }
        rows.sort { $0.reading.t < $1.reading.t }
        truth.sort { $0.t < $1.t }
        return Walk(name: name, readings: rows, truth: truth)
    }

    /// The dataset's area (`tetam.par` limits) as a one-room, one-floor site.
    public static func site(receivers: [Node]) -> Site {
        var site = Site()
        var floor = Floor(id: "tetam", name: "TETAM", bounds: (Point3(0, 0, 0), Point3(20.66, 17.64, 3)))
        floor.rooms = [Room(id: "lab", name: "Lab", points: [Point2(0, 0), Point2(20.66, 0), Point2(20.66, 17.64), Point2(0, 17.64)])]
        site.floors = [floor]
        site.nodes = receivers
        return site
    }
}

/// The next double-quoted string in `text`, consuming through its closing quote.
private func quoted(_ text: inout Substring) -> Substring? {
    guard let open = text.firstIndex(of: "\""),
          let close = text[text.index(after: open)...].firstIndex(of: "\"") else { return nil }
    defer { text = text[text.index(after: close)...] }
    return text[text.index(after: open)..<close]
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\r" || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\r" || l == "\t" { s = s.dropLast() }
        return s
    }
}

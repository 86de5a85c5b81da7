/// Per-room fingerprints, what `whereabouts calibrate --rooms ROOMS.csv` teaches: for each room,
/// how often each node heard the taught tag there and how loud (docs/operations.md, Rooms without
/// a floor plan). The calibration file's `fingerprints:` section; the engine's arithmetic on them
/// is `Positioning.RoomFingerprints`.
public struct RoomFingerprintSet: Sendable, Equatable {
    /// What one node heard of the tag in one room, over the taught windows.
    public struct NodeLevel: Sendable, Equatable {
        public var node: String
        /// The share of windows in which the node heard the tag at all.
        public var heard: Double
        /// Mean and spread (dB) of the level the node heard when it did: RSSI with the node's
        /// `rx_adj`, less the device's reference power (so another device compares).
        public var level: Double
        public var sd: Double
        public init(node: String, heard: Double, level: Double, sd: Double) {
            self.node = node; self.heard = heard; self.level = level; self.sd = sd
        }
    }

    public struct Room: Sendable, Equatable {
        public var room: String
        /// Windows taught in this room.
        public var windows: Int
        /// One entry per node heard anywhere at teach-in.
        public var nodes: [NodeLevel]
        public init(room: String, windows: Int, nodes: [NodeLevel]) { self.room = room; self.windows = windows; self.nodes = nodes }
    }

    /// Seconds of readings each window (and each decision at run time) stands on.
    public var window: Double
    public var rooms: [Room]
    public init(window: Double, rooms: [Room]) { self.window = window; self.rooms = rooms }
}

extension SiteCalibration {
    /// The `fingerprints:` section of a calibration file; problems go to `reader`.
    static func decodeFingerprints(_ node: ConfigNode?, _ reader: inout ConfigReader) -> RoomFingerprintSet? {
        guard let node, !node.isNull,
              let f = reader.fields(node, "fingerprints", known: ["window", "rooms", "taught"]) else { return nil }
        guard let window = reader.number(reader.required(f, "window"), f.path("window"), within: 0.1...60) else { return nil }
        var rooms: [RoomFingerprintSet.Room] = []
        for (i, item) in (reader.list(f["rooms"], f.path("rooms")) ?? []).enumerated() {
            let key = f.path("rooms") + "[\(i)]"
            guard let r = reader.fields(item, key, known: ["room", "windows", "nodes"]),
                  let room = reader.string(reader.required(r, "room"), r.path("room")),
                  let windows = reader.integer(reader.required(r, "windows"), r.path("windows"), within: 1...Int.max) else { continue }
            var levels: [RoomFingerprintSet.NodeLevel] = []
            for (j, entry) in (reader.list(r["nodes"], r.path("nodes")) ?? []).enumerated() {
                let nkey = r.path("nodes") + "[\(j)]"
                guard let n = reader.fields(entry, nkey, known: ["node", "heard", "level", "sd"]),
                      let name = reader.string(reader.required(n, "node"), n.path("node")),
                      let heard = reader.number(reader.required(n, "heard"), n.path("heard"), within: 0...1),
                      let level = reader.number(reader.required(n, "level"), n.path("level"), within: -200...100),
                      let sd = reader.number(reader.required(n, "sd"), n.path("sd"), within: 0.1...60) else { continue }
                levels.append(.init(node: name, heard: heard, level: level, sd: sd))
            }
            rooms.append(.init(room: room, windows: windows, nodes: levels))
        }
        return RoomFingerprintSet(window: window, rooms: rooms)
    }

    /// Rooms of these fingerprints that `site` does not have, and nodes it does not list.
    public func unknownFingerprintNames(in site: Site) -> (rooms: [String], nodes: [String]) {
        guard let fingerprints else { return ([], []) }
        let rooms = Set(site.floors.flatMap { $0.rooms.map(\.id) }), nodes = Set(site.nodes.map(\.name))
        let badRooms = fingerprints.rooms.map(\.room).filter { !rooms.contains($0) }
        let badNodes = Set(fingerprints.rooms.flatMap { $0.nodes.map(\.node) }).filter { !nodes.contains($0) }
        return (badRooms.sorted(), badNodes.sorted())
    }
}

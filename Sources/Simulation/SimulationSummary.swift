import Wire

/// What a run produced and the hidden truths behind it (offsets and errors the positioning
/// engine must cope with without knowing them), for `manifest.json`.
public struct SimulationSummary: Sendable {
    public struct NodeSummary: Sendable {
        public var name: String
        public var file: String
        /// Advertisements heard (capture records), and readings made of them.
        public var heard: Int
        public var readings: Int
        public var batches: Int
        public var rxOffset: Double
        public var clockOffset: Double
        public var clockDriftPPM: Double
    }

    public struct DeviceSummary: Sendable {
        public var id: String
        public var kind: ReadingKind
        /// Announced measured power at 1 m, and what it really sends.
        public var txPower: Int
        public var truePower: Double
        /// Advertising events sent while present, and addresses used.
        public var events: Int
        public var addresses: Int
        public var irk: String?
        /// False for a stranger's phone: in the captures, not in the readings.
        public var named: Bool
    }

    public var seed: UInt64
    public var start: Double
    public var duration: Double
    public var nodes: [NodeSummary]
    public var devices: [DeviceSummary]
    public var readings: Int
    public var batches: Int
    public var truthLines: Int

    /// `manifest.json`: the files, the seed and the counts; `files` names the readings and truth files.
    public func manifest(readingsFile: String = "readings.jsonl", truthFile: String = "truth.jsonl") -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.objectStart()
        w.key("seed"); w.value(seed)
        w.key("start"); w.time(start)
        w.field("duration", duration)
        w.key("files"); w.objectStart()
        w.field("readings", readingsFile)
        w.field("truth", truthFile)
        w.key("captures"); w.arrayStart()
        for node in nodes { w.value(node.file) }
        w.arrayEnd()
        w.objectEnd()
        w.key("counts"); w.objectStart()
        w.field("readings", readings)
        w.field("batches", batches)
        w.field("truth", truthLines)
        w.field("events", devices.reduce(0) { $0 + $1.events })
        w.objectEnd()
        w.key("nodes"); w.arrayStart()
        for node in nodes {
            w.objectStart()
            w.field("name", node.name); w.field("file", node.file); w.field("heard", node.heard); w.field("readings", node.readings)
            w.field("batches", node.batches)
            w.field("rx_offset", node.rxOffset); w.field("clock_offset", node.clockOffset, decimals: 6); w.field("clock_drift_ppm", node.clockDriftPPM)
            w.objectEnd()
        }
        w.arrayEnd()
        w.key("devices"); w.arrayStart()
        for device in devices {
            w.objectStart()
            w.field("id", device.id); w.field("kind", device.kind.rawValue); w.field("tx_power", device.txPower)
            w.field("true_power", device.truePower); w.field("events", device.events); w.field("addresses", device.addresses)
            if let irk = device.irk { w.field("irk", irk) }
            w.field("named", device.named)
            w.objectEnd()
        }
        w.arrayEnd()
        w.objectEnd()
        return w.bytes + [0x0A]
    }
}

extension Simulation {
    func summary(_ state: RunState) -> SimulationSummary {
        let nodes = state.receivers.enumerated().map { n, r in
            SimulationSummary.NodeSummary(name: r.name, file: Self.captureFileName(r.name), heard: r.heard, readings: r.readings, batches: r.batches,
                                          rxOffset: state.channel.rxOffsets[n], clockOffset: r.clockOffset, clockDriftPPM: r.clockDrift * 1e6)
        }
        let devices = state.devices.map { d in
            SimulationSummary.DeviceSummary(id: d.id, kind: d.kind, txPower: d.spec.txPower, truePower: d.truePower,
                                            events: d.events, addresses: d.addresses, irk: d.irk?.hex, named: d.named)
        }
        return SimulationSummary(seed: scenario.seed, start: scenario.start, duration: scenario.duration, nodes: nodes, devices: devices,
                                 readings: state.readings, batches: nodes.reduce(0) { $0 + $1.batches }, truthLines: state.truthCount)
    }
}

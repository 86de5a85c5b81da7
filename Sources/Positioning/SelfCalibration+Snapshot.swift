import SiteModel

/// Self-calibration's learned state by name, as it is stored and shown: what a restart or a
/// replay starts from (`Engine.restoreCalibration`).
public struct SelfCalibrationSnapshot: Sendable, Equatable {
    /// A node's learned offset (dB added to its RSSI, gauge applied: they average 0 over the
    /// learned nodes) and the evidence behind it.
    public struct NodeOffset: Sendable, Equatable {
        public var name: String
        public var offset: Double
        public var evidence: Double
        public init(name: String, offset: Double, evidence: Double) { self.name = name; self.offset = offset; self.evidence = evidence }
    }
    /// A floor's learned path-loss exponent and the evidence behind it.
    public struct FloorExponent: Sendable, Equatable {
        public var floor: String
        public var exponent: Double
        public var evidence: Double
        public init(floor: String, exponent: Double, evidence: Double) { self.floor = floor; self.exponent = exponent; self.evidence = evidence }
    }
    /// A device's learned reference-power correction (`TxLearning`), dB.
    public struct DevicePower: Sendable, Equatable {
        public var id: String
        public var offset: Double
        public init(id: String, offset: Double) { self.id = id; self.offset = offset }
    }

    public var mode: SelfCalibrationMode
    public var nodes: [NodeOffset]
    public var floors: [FloorExponent]
    public var devices: [DevicePower]
    public var updates: Int

    public init(mode: SelfCalibrationMode = .learn, nodes: [NodeOffset] = [], floors: [FloorExponent] = [],
                devices: [DevicePower] = [], updates: Int = 0) {
        self.mode = mode; self.nodes = nodes; self.floors = floors; self.devices = devices; self.updates = updates
    }
}

extension Engine {
    /// What self-calibration has learned, by name: nodes and floors with evidence, and every
    /// known device's power correction that is not 0.
    public func calibrationSnapshot() -> SelfCalibrationSnapshot {
        let c = selfCalibration
        var snapshot = SelfCalibrationSnapshot(mode: c.mode, updates: c.updates)
        for (n, node) in geometry.nodes.enumerated() where c.evidence[n] > 0 {
            snapshot.nodes.append(.init(name: node.name, offset: c.offset(node: n), evidence: c.evidence[n]))
        }
        for (f, floor) in geometry.floors.enumerated() where c.exponentEvidence[f] > 0 {
            snapshot.floors.append(.init(floor: floor.id, exponent: c.exponents[f], evidence: c.exponentEvidence[f]))
        }
        for d in devices.indices where !devices[d].isFree && !hot[d].excluded && devices[d].txOffset != 0 {
            snapshot.devices.append(.init(id: devices[d].id, offset: devices[d].txOffset))
        }
        // Restored and not heard since: kept for when they are.
        for (id, offset) in restoredPowers { snapshot.devices.append(.init(id: id, offset: offset)) }
        return snapshot
    }

    /// Starts from `snapshot` (what a previous run learned): names this site does not know are
    /// left out; a device's power applies when it is next interned. In mode `off` nothing of it
    /// is applied, in `frozen` it is applied and kept.
    public func restoreCalibration(_ snapshot: SelfCalibrationSnapshot) {
        for node in snapshot.nodes {
            if let n = index(ofNode: node.name) { selfCalibration.restore(node: n, offset: node.offset, evidence: node.evidence) }
        }
        for floor in snapshot.floors {
            if let f = geometry.floors.firstIndex(where: { $0.id == floor.floor }) {
                selfCalibration.restore(floor: f, exponent: floor.exponent, evidence: floor.evidence)
            }
        }
        selfCalibration.restore(updates: snapshot.updates)
        guard selfCalibration.applies else { return }
        for device in snapshot.devices where device.offset.isFinite {
            restoredPowers[device.id] = max(min(device.offset, options.transmitPower.limit), -options.transmitPower.limit)
        }
    }
}

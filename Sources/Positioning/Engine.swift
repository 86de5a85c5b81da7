import Wire
import SiteModel

/// The positioning engine: readings in, tracked positions, rooms and zone events out.
///
/// It runs on the readings' own timestamps (`advance(to:)` moves event time), never on a
/// clock, so a recording replays to the same answer at any speed. One owner, one thread.
/// Device ids and node names are interned to dense indices once; a reading then costs one
/// dictionary lookup and a write into preallocated slots.
public final class Engine {
    public internal(set) var site: Site
    /// The stages readings go through and the solver (`Pipeline`).
    public let pipeline: Pipeline
    public var locatorKind: LocatorKind { pipeline.locator }
    public let options: EngineOptions
    var geometry: SiteGeometry
    let locator: any Locator
    var model: PathLoss
    let floorChoice: FloorChoice
    let txLearning: TxLearning
    /// What is learned from traffic (`SelfCalibration`, `Engine+SelfCalibration.swift`).
    var selfCalibration: SelfCalibration
    /// The residuals of the solve teaching self-calibration (reused).
    var residuals: [CalibrationResidual] = []
    /// Devices' power corrections restored from a snapshot, taken when each is interned.
    var restoredPowers: [String: Double] = [:]

    var devices: [DeviceState] = []
    /// What each reading of a device touches, by the same index as `devices`.
    let hot = HotDevices()
    /// Device ids to indices, looked up by their UTF-8 bytes (see `DeviceIds`).
    var ids = DeviceIds()
    /// Slots of forgotten devices, reused before `devices` grows.
    var freeDevices: [Int32] = []
    /// Per node: links of forgotten devices, reused before the `LinkStore` grows. Their old
    /// samples are older than `forgetAfter`, so no smoothing window ever reaches them again.
    var freeLinks: [[Int32]]
    /// Ids forgotten since the last `takeForgotten`, for the owner's own per-device state.
    var forgottenIds: [String] = []
    private var nodeIndex: [String: Int] = [:]
    var links = LinkStore()
    /// Devices with readings not yet solved, by when their next solve is due.
    var queue = DueQueue()
    /// The readings of the batch being taken, resolved and waiting for `record` (reused).
    private var pending: [HeardReading] = []
    /// Devices solved in the `advance` under way that stay queued (readings newer than it).
    var requeue: [Int32] = []
    /// Event time of the last `advance`.
    public internal(set) var watermark = -Double.infinity
    var nextAwaySweep = -Double.infinity
    /// The last `advance(to:maxSolves:into:)` left devices due and unsolved.
    public internal(set) var hasDueDevices = false

    /// Seconds of event time after its last reading that a device not present (away, or never
    /// placed) is forgotten: its state, links and id go, and it starts afresh if heard again.
    /// Never less than `away_after`. A flood of made-up ids then costs memory for this long only.
    public var forgetAfter = 600.0
    /// The most devices kept at once; a new id beyond it is refused (`Rejection.capacity`)
    /// until forgetting frees a slot. Bounds memory whatever the radio brings.
    public var maxDevices = 100_000

    /// Solves made, and solves left out because the device's last fix still stood (`mayHold`).
    public internal(set) var solves = 0
    public internal(set) var holds = 0

    /// Node beacon ids (`Node.beacon`) to the node sending them, looked up once per new id.
    private(set) var beaconNodes: [String: Int32] = [:]
    /// Readings of node beacons by other nodes, kept for calibration; never tracked.
    public private(set) var beaconLinks: NodeBeaconLinks
    public private(set) var rejections = Rejections()
    public private(set) var accepted = 0
    public private(set) var lastRejection: Rejection?

    // Reused buffers: solves allocate nothing once they have grown.
    var observations: [Observation] = []
    var floorObservations: [Observation] = []
    /// Per room: the loudest node in it that heard the device being solved.
    var roomLoudness: [Double]
    /// What turns a solve's observations into room evidence besides the position (taught
    /// fingerprints, a floor-plan-free site's node rooms), asked in order; and their evidence
    /// for the solve under way (`RoomEvidence`, reused).
    var roomEvidenceSources: [any RoomEvidenceSource] = []
    var roomEvidence: RoomEvidence
    /// When each node last heard any device: taught fingerprints leave out nodes gone silent.
    let nodeLiveness: NodeLiveness
    /// `site.hasFloorPlan`, once: without a plan no locator runs (`solveWithoutPlan`).
    let hasFloorPlan: Bool

    /// An engine running `locator`'s preset pipeline (`LocatorKind.pipeline`).
    public convenience init(site: Site, locator: LocatorKind = .default, options: EngineOptions = EngineOptions()) {
        self.init(site: site, pipeline: locator.pipeline, options: options)
    }

    public init(site: Site, pipeline: Pipeline, options: EngineOptions = EngineOptions()) {
        self.site = site
        self.pipeline = pipeline
        self.options = options
        let locator = pipeline.locator.makeLocator(), model = PathLoss(exponent: site.positioning.absorption)
        self.locator = locator
        self.model = model
        floorChoice = FloorChoice(options: options.floorChoice)
        txLearning = TxLearning(options: options.transmitPower)
        selfCalibration = SelfCalibration(mode: pipeline.selfCalibration ? site.positioning.selfCalibration : .off,
                                          nodes: site.nodes.count, floors: site.floors.count,
                                          absorption: site.positioning.absorption, options: options.selfCalibration)
        selfCalibration.fixesTeachExponent = !site.positioning.absorptionStated
        let geometry = Self.compile(site, locator: locator, model: model, options: options)
        self.geometry = geometry
        roomLoudness = [Double](repeating: -.infinity, count: geometry.rooms.count)
        roomEvidence = RoomEvidence(rooms: geometry.rooms.count)
        nodeLiveness = NodeLiveness(nodes: site.nodes.count)
        hasFloorPlan = site.hasFloorPlan
        roomEvidenceSources = Self.roomEvidenceSources(site: site, geometry: geometry, liveness: nodeLiveness)
        freeLinks = Array(repeating: [], count: site.nodes.count)
        for (i, node) in site.nodes.enumerated() where nodeIndex[node.name] == nil { nodeIndex[node.name] = i }
        for (i, node) in site.nodes.enumerated() { if let id = node.beacon { beaconNodes[id] = Int32(i) } }
        beaconLinks = NodeBeaconLinks(nodeCount: site.nodes.count)
        observations.reserveCapacity(max(site.nodes.count, 8))
        residuals.reserveCapacity(max(site.nodes.count, 8))
        floorObservations.reserveCapacity(max(site.nodes.count, 8))
    }

    /// The dense index of a site node, for `ingest(nodeIndex:reading:)`.
    public func index(ofNode name: String) -> Int? { nodeIndex[name] }

    /// Devices known now: seen, and not forgotten since.
    public var deviceCount: Int { devices.count - freeDevices.count }

    /// Moves the ids forgotten since the last call into `ids` (appended).
    public func takeForgotten(into ids: inout [String]) {
        ids.append(contentsOf: forgottenIds)
        forgottenIds.removeAll(keepingCapacity: true)
    }

    /// Takes one reading heard by `node`. `false` when refused; `lastRejection` says why
    /// and `rejections` counts it.
    @discardableResult
    public func ingest(node: String, reading: Reading) -> Bool {
        guard let n = nodeIndex[node] else { return reject(.unknownNode) }
        return ingest(nodeIndex: n, reading: reading)
    }

    /// As `ingest(node:reading:)` with the node already interned.
    @discardableResult
    public func ingest(nodeIndex n: Int, reading: Reading) -> Bool {
        var id = reading.id
        return id.withUTF8 { bytes in
            ingest(node: n, id: UnsafeRawBufferPointer(bytes), idString: reading.id, rssi: reading.rssi, tx: reading.tx, t: reading.t)
        }
    }

    /// As `ingest(nodeIndex:reading:)` with the id given by its UTF-8 bytes (straight from
    /// a payload): a known device costs one hash and one compare of those bytes, no `String`.
    @discardableResult
    public func ingest(nodeIndex n: Int, id: UnsafeRawBufferPointer, rssi: Int, tx: Int?, t: Double) -> Bool {
        ingest(node: n, id: id, idString: nil, rssi: rssi, tx: tx, t: t)
    }

    /// The hash the engine looks a device id up by (`DeviceIds.hash`: keyed by words drawn
    /// once per process, the same on every thread), for `ingest(nodeIndex:batch:ids:hashed:rejected:)`.
    public static func idHash(_ id: UnsafeRawBufferPointer) -> Int { DeviceIds.hash(id) }

    /// Sets `idHash` (`idHash(_:)` of its id) on every plain-id reading, whose id ranges are
    /// ranges of `ids`: one call a batch, where a call a reading (through the key's lazy global
    /// and the class's metadata) cost about a fifth as much as the hash itself.
    public static func hashIds(of readings: UnsafeMutableBufferPointer<BatchReading>, in ids: UnsafeRawBufferPointer) {
        DeviceIds.withKey { key in
            for i in readings.indices where readings[i].idIsPlain {
                readings[i].idHash = DeviceIds.hash(readings[i].idBytes(in: ids), nhKey: key)
            }
        }
    }

    /// As `ingest(nodeIndex:id:rssi:tx:t:)` for every reading of a batch from node `n`
    /// (docs/protocol.md#mqtt-topics-and-payloads: up to 200 readings of one node), in order. `ids` holds the bytes the readings'
    /// id ranges point into; `hashed`: each reading carries `idHash(id)` already. `rejected`
    /// hears why each refused reading was. Returns the readings accepted and the newest time
    /// among them.
    ///
    /// At the end-to-end ladder's top a reading's own work is a few hundred instructions, and
    /// the calls and checks around it were a fifth of that. So the node is checked once, each
    /// reading is resolved to its device and link in one loop (the per-reading body inlined;
    /// a new id or link out of line), and then all are recorded through one access to the
    /// devices and the link store (`record`), not a uniqueness check of three arrays each.
    /// `rejected` is called inside that access: it must not call back into the engine.
    public func ingest(nodeIndex n: Int, batch: [BatchReading], ids: UnsafeRawBufferPointer, hashed: Bool,
                       rejected: (Rejection) -> Void) -> (accepted: Int, newest: Double) {
        var accepted = 0, newest = -Double.infinity
        guard geometry.nodes.indices.contains(n) else {
            for _ in batch { _ = reject(.unknownNode); rejected(.unknownNode) }
            return (accepted, newest)
        }
        let rxAdj = geometry.nodes[n].rxAdj, oldest = watermark - options.lateness
        if pending.count < batch.count { pending = Array(repeating: HeardReading(), count: batch.count) }
        pending.withUnsafeMutableBufferPointer { pending in
            var count = 0
            for r in batch {
                let tx = r.tx == BatchReading.noTx ? nil : Int(r.tx)
                let taken: Taken
                if r.idIsPlain {
                    let id = r.idBytes(in: ids)
                    // A wrong hash would make a second device of the id: checked in debug builds.
                    assert(!hashed || r.idHash == DeviceIds.hash(id), "hashed: true with a reading not hashed by Engine.hashIds")
                    taken = resolve(node: n, oldest: oldest, id: id, idString: nil, hash: hashed ? r.idHash : DeviceIds.hash(id),
                                    rssi: Int(r.rssi), tx: tx, t: r.t)
                } else {
                    let idString = r.id(in: ids)
                    var id = idString
                    taken = id.withUTF8 {
                        resolve(node: n, oldest: oldest, id: UnsafeRawBufferPointer($0), idString: idString, hash: DeviceIds.hash(UnsafeRawBufferPointer($0)),
                                rssi: Int(r.rssi), tx: tx, t: r.t)
                    }
                }
                switch taken {
                case .refused:
                    if let why = lastRejection { rejected(why) }
                    continue
                case .untracked:
                    break
                case .heard(let device, let link):
                    pending[count] = HeardReading(device: device, link: link, rssi: Double(r.rssi) + rxAdj, t: r.t, tx: r.tx)
                    count += 1
                }
                accepted += 1
                newest = max(newest, r.t)
            }
            record(UnsafeBufferPointer(rebasing: pending[..<count]))
        }
        if accepted > 0 { nodeLiveness.heard(n, at: newest) }
        return (accepted, newest)
    }

    private func ingest(node n: Int, id: UnsafeRawBufferPointer, idString: String?, rssi: Int, tx: Int?, t: Double) -> Bool {
        guard geometry.nodes.indices.contains(n) else { return reject(.unknownNode) }
        switch resolve(node: n, oldest: watermark - options.lateness, id: id, idString: idString, hash: DeviceIds.hash(id), rssi: rssi, tx: tx, t: t) {
        case .refused: return false
        case .untracked: return true
        case .heard(let device, let link):
            nodeLiveness.heard(n, at: t)
            let heard = HeardReading(device: device, link: link, rssi: Double(rssi) + geometry.nodes[n].rxAdj, t: t,
                                     tx: tx.map { Int16(clamping: $0) } ?? BatchReading.noTx)
            withUnsafePointer(to: heard) { record(UnsafeBufferPointer(start: $0, count: 1)) }
            return true
        }
    }

    /// What became of a reading (`resolve`).
    private enum Taken {
        case refused
        /// Accepted, and not tracked: a node's beacon.
        case untracked
        /// To be recorded in this device and link.
        case heard(device: Int32, link: Int32)
    }

    /// A reading from node `n` (checked already), readings older than `oldest` refused: the
    /// device and link it goes to (made if new), or what else became of it.
    @inline(__always)
    private func resolve(node n: Int, oldest: Double, id: UnsafeRawBufferPointer, idString: String?, hash: Int,
                         rssi: Int, tx: Int?, t: Double) -> Taken {
        guard rssi < 0, rssi >= -127 else { _ = reject(.badRSSI); return .refused }
        guard t.isFinite, t >= oldest else { _ = reject(.late); return .refused }
        guard let index = ids.find(id, hash: hash) ?? intern(idString ?? String(decoding: id, as: UTF8.self), bytes: id, hash: hash) else {
            _ = reject(.capacity)
            return .refused
        }
        let d = Int(index)
        // `index` is the id table's, which holds only indices of devices made (`intern`).
        let device = hot.base + d
        guard !device.pointee.excluded else { return untracked(device: d, node: n, rssi: rssi, tx: tx, t: t) ? .untracked : .refused }
        return .heard(device: index, link: device.pointee.inlineLink(to: Int32(n)) ?? moreLink(device: d, node: Int32(n)))
    }

    /// Records readings resolved to their device and link: each into its link's samples and
    /// its device, which is queued for a solve unless it is already.
    private func record(_ readings: UnsafeBufferPointer<HeardReading>) {
        let interval = options.updateInterval
        let hot = hot.base
        links.withWriter { links in
            for h in readings {
                links.add(link: h.link, rssi: h.rssi, at: h.t)
                let device = hot + Int(h.device)
                if !device.pointee.heard(tx: h.tx == BatchReading.noTx ? nil : Int(h.tx), at: h.t) {
                    queue.push(h.device, due: device.pointee.lastSolve + interval)
                }
            }
        }
        accepted += readings.count
    }

    /// A reading of a device that is not tracked: a node's beacon is kept for calibration
    /// (and accepted), an excluded device refused.
    private func untracked(device d: Int, node n: Int, rssi: Int, tx: Int?, t: Double) -> Bool {
        let from = Int(devices[d].beaconOf)
        guard from >= 0 else { return reject(.excluded) }
        beaconLinks.record(from: from, to: n, rssi: rssi, tx: tx)
        if selfCalibration.learns { teachSelfCalibration(beaconOf: from, heardBy: n, rssi: rssi, tx: tx) }
        // Heard, so not forgotten (and interned again) at every sweep while it keeps beaconing.
        hot[d].lastReading = max(hot[d].lastReading, t)
        accepted += 1
        return true
    }

    private func reject(_ reason: Rejection) -> Bool {
        switch reason {
        case .unknownNode: rejections.unknownNode += 1
        case .late: rejections.late += 1
        case .badRSSI: rejections.badRSSI += 1
        case .excluded: rejections.excluded += 1
        case .capacity: rejections.capacity += 1
        }
        lastRejection = reason
        return false
    }
}

/// A reading resolved to its device and link, waiting to be recorded (`Engine.record`).
struct HeardReading {
    var device: Int32 = 0
    var link: Int32 = 0
    /// The RSSI with the node's `rxAdj`.
    var rssi = 0.0
    var t = 0.0
    /// The frame's measured power, or `BatchReading.noTx`.
    var tx = BatchReading.noTx
}

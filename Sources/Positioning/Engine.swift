import Wire

/// The positioning engine: readings in, tracked positions, rooms and zone events out.
///
/// It runs on the readings' own timestamps (`advance(to:)` moves event time), never on a
/// clock, so a recording replays to the same answer at any speed. One owner, one thread.
/// Device ids and node names are interned to dense indices once; a reading then costs one
/// dictionary lookup and a write into preallocated slots.
public final class Engine {
    public let site: Site
    public let locatorKind: LocatorKind
    public let options: EngineOptions
    let geometry: SiteGeometry
    let locator: any Locator
    let model: PathLoss

    var devices: [DeviceState] = []
    private var deviceIndex: [String: Int32] = [:]
    private var nodeIndex: [String: Int] = [:]
    var links = LinkStore()
    /// Devices with readings not yet solved.
    var queue: [Int32] = []
    /// Event time of the last `advance`.
    public internal(set) var watermark = -Double.infinity
    var nextAwaySweep = -Double.infinity

    public private(set) var rejections = Rejections()
    public private(set) var accepted = 0
    public private(set) var lastRejection: Rejection?

    // Reused buffers: solves allocate nothing once they have grown.
    var observations: [Observation] = []
    var floorObservations: [Observation] = []
    var samples: [Double] = []
    /// Per room: the loudest node in it that heard the device being solved.
    var roomLoudness: [Double]

    public init(site: Site, locator: LocatorKind = .default, options: EngineOptions = EngineOptions()) {
        self.site = site
        self.locatorKind = locator
        self.options = options
        var geometry = SiteGeometry(site)
        geometry.deviceHeight = options.deviceHeight
        self.locator = locator.makeLocator()
        self.model = PathLoss(exponent: site.positioning.absorption)
        if locator == .default { geometry.buildGrids(slope: model.slope, height: options.deviceHeight ?? 1.2) }
        self.geometry = geometry
        roomLoudness = [Double](repeating: -.infinity, count: geometry.rooms.count)
        for (i, node) in site.nodes.enumerated() where nodeIndex[node.name] == nil { nodeIndex[node.name] = i }
        observations.reserveCapacity(max(site.nodes.count, 8))
        floorObservations.reserveCapacity(max(site.nodes.count, 8))
        samples.reserveCapacity(LinkStore.capacity)
    }

    /// The dense index of a site node, for `ingest(nodeIndex:reading:)`.
    public func index(ofNode name: String) -> Int? { nodeIndex[name] }

    /// Devices seen so far.
    public var deviceCount: Int { devices.count }

    /// Takes one reading heard by `node`. `false` when refused; `lastRejection` says why
    /// and `rejections` counts it.
    @discardableResult
    public func ingest(node: String, reading: Reading) -> Bool {
        guard let n = nodeIndex[node] else { return reject(.unknownNode) }
        return ingest(nodeIndex: n, reading: reading)
    }

    /// As `ingest(node:reading:)` with the node already interned: one dictionary lookup.
    @discardableResult
    public func ingest(nodeIndex n: Int, reading: Reading) -> Bool {
        guard geometry.nodes.indices.contains(n) else { return reject(.unknownNode) }
        guard reading.rssi < 0, reading.rssi >= -127 else { return reject(.badRSSI) }
        guard reading.t.isFinite, reading.t >= watermark - options.lateness else { return reject(.late) }
        let d = Int(deviceIndex[reading.id] ?? intern(reading.id))
        guard !devices[d].excluded else { return reject(.excluded) }
        let link = self.link(device: d, node: Int32(n))
        links.add(link: link, rssi: Double(reading.rssi) + geometry.nodes[n].rxAdj, at: reading.t)
        if let tx = reading.tx, tx < 0, tx >= -127 { devices[d].frameTxRef = Double(tx) }
        if reading.t > devices[d].lastReading { devices[d].lastReading = reading.t }
        if !devices[d].isQueued {
            devices[d].isQueued = true
            queue.append(Int32(d))
        }
        accepted += 1
        return true
    }

    private func reject(_ reason: Rejection) -> Bool {
        switch reason {
        case .unknownNode: rejections.unknownNode += 1
        case .late: rejections.late += 1
        case .badRSSI: rejections.badRSSI += 1
        case .excluded: rejections.excluded += 1
        }
        lastRejection = reason
        return false
    }

    private func intern(_ id: String) -> Int32 {
        let config = site.devices.first { $0.id == id }
        let excluded = site.excludeDevices.contains { globMatches($0[...], id[...]) }
        devices.append(DeviceState(id: id, name: config?.name, configuredTxRef: config?.txRef, excluded: excluded,
                                   track: Track(acceleration: options.acceleration, maxSpeed: options.maxSpeed)))
        let index = Int32(devices.count - 1)
        deviceIndex[id] = index
        return index
    }

    private func link(device d: Int, node n: Int32) -> Int32 {
        for l in devices[d].links where links.node[Int(l)] == n { return l }
        let l = links.make(node: n)
        devices[d].links.append(l)
        return l
    }
}

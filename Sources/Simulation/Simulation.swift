import BLE
import Wire
import SiteModel

/// One of the files a simulation writes.
public enum SimulationFile: Hashable, Sendable {
    /// The btsnoop capture of node `index` (in the site's order).
    case capture(Int)
    /// docs/protocol.md#mqtt-topics-and-payloads batches, one JSON object per line.
    case readings
    /// Ground truth, one JSON object per line per device at 10 Hz.
    case truth
}

/// Where a simulation's bytes go: files for the command line, memory for tests. Bytes come in
/// order, in chunks; a file's first chunk starts it.
public protocol SimulationOutput {
    mutating func write(_ bytes: [UInt8], to file: SimulationFile)
}

/// A site and a scenario checked against each other, ready to run.
///
/// Running is deterministic: the same site, scenario and seed give the same bytes, since every
/// random draw comes from a stream named after what it is for (see `RandomStream`).
public struct Simulation: Sendable {
    public let site: Site
    public let scenario: Scenario
    package let world: World
    /// Each device's key (phones only): the scenario's, the site's, or one drawn from the seed.
    let keys: [IdentityResolvingKey?]
    /// Whether anyone knows the key: a phone whose key was drawn from the seed is a stranger,
    /// heard in the captures but never named in the readings (an edge drops what it cannot resolve).
    let known: [Bool]

    /// Ground truth is sampled this often (s); batches are formed as the true clock passes
    /// each tick.
    static let truthPeriod = 0.1
    static let tick = 0.25

    /// Checks that the scenario fits the site (rooms, floors and nodes it names exist, every
    /// device has somewhere to be). Problems carry the scenario's line and key.
    public static func prepare(site: Site, scenario: Scenario) -> (simulation: Simulation?, problems: [SiteProblem]) {
        let world = World(site: site)
        var problems = check(scenario, against: world)
        var scenario = scenario
        if let beacons = scenario.nodeBeacons {
            let (devices, beaconProblems) = nodeBeaconDevices(beacons, world: world, others: scenario.devices)
            scenario.devices += devices
            problems += beaconProblems
        }
        var keys: [IdentityResolvingKey?] = []
        var known: [Bool] = []
        var phones: [[UInt8]: String] = [:]
        for (d, device) in scenario.devices.enumerated() {
            guard case let .phone(name, given, rotation) = device.kind else { keys.append(nil); known.append(true); continue }
            let (key, isKnown, problem) = phoneKey(name: name, given: given, device: device, site: site, seed: scenario.seed)
            if let problem { problems.append(SiteProblem(.error, line: device.line, key: device.key, message: problem)) }
            if let key, let other = phones.updateValue(device.id, forKey: key.bytes) {
                problems.append(SiteProblem(.error, line: device.line, key: device.key, message: "has the key of \(other): one key is one phone"))
            }
            keys.append(key)
            known.append(isKnown)
            // From here on the phone's id is irk:<key hex>, as an edge holding the key names it.
            scenario.devices[d].kind = .phone(name: name, irk: key, rotation: rotation)
        }
        guard !problems.contains(where: { $0.severity == .error }) else { return (nil, problems) }
        return (Simulation(site: site, scenario: scenario, world: world, keys: keys, known: known), problems)
    }

    /// One still advertiser per site node with a `beacon` id, where the node stands, carried by
    /// nobody. The simulator sends iBeacon and fixed-address frames, so other ids cannot beacon.
    static func nodeBeaconDevices(_ beacons: NodeBeacons, world: World, others: [DeviceSpec]) -> ([DeviceSpec], [SiteProblem]) {
        var devices: [DeviceSpec] = [], problems: [SiteProblem] = []
        func error(_ message: String) { problems.append(SiteProblem(.error, line: beacons.line, key: "node_beacons", message: message)) }
        for (n, node) in world.site.nodes.enumerated() {
            guard let id = node.beacon else { continue }
            guard let kind = ScenarioDecoder.kind(fromID: id), id.hasPrefix("iBeacon:") || id.hasPrefix("mac:") else {
                error("node '\(node.name)' beacons as '\(id)': the simulator sends iBeacon and mac ids only")
                continue
            }
            if let other = others.first(where: { $0.id == id }) {
                error("node '\(node.name)' beacons as '\(id)', which \(other.key) (line \(other.line)) is too")
                continue
            }
            let floor = world.nodeFloors[n]
            var device = DeviceSpec(kind: kind)
            device.txPower = beacons.txPower
            device.interval = beacons.interval
            device.bodyLoss = 0
            device.height = max(node.point.z - world.site.floors[floor].bounds.min.z, 0)
            device.path = [PathStep(.waypoint(node.point.xy, floor: world.site.floors[floor].id, dwell: 0), line: beacons.line, key: "node_beacons")]
            device.beaconOf = n
            device.line = beacons.line
            device.key = "node_beacons"
            devices.append(device)
        }
        if devices.isEmpty && problems.isEmpty {
            problems.append(SiteProblem(.warning, line: beacons.line, key: "node_beacons", message: "no site node has a beacon id: nothing beacons"))
        }
        return (devices, problems)
    }

    /// A phone's key: the scenario's (which must agree with a site key of the same name), else
    /// the site's of that name, else one drawn from the seed for a stranger nobody can resolve.
    private static func phoneKey(name: String, given: IdentityResolvingKey?, device: DeviceSpec, site: Site,
                                 seed: UInt64) -> (key: IdentityResolvingKey?, known: Bool, problem: String?) {
        let configured = site.irks.first { $0.id == name }
        if let given {
            guard configured == nil || configured?.key == given.bytes else { return (given, true, "the site's IRK \(name) is another key") }
            return (given, true, nil)
        }
        if let configured {
            guard let key = IdentityResolvingKey(configured.key) else { return (nil, true, "the site's IRK \(name) is not 16 bytes") }
            return (key, true, nil)
        }
        var rng = RandomStream(seed: seed, label: "device/\(device.streamLabel)/irk")
        return (IdentityResolvingKey((0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }), false, nil)
    }

    static func check(_ scenario: Scenario, against world: World) -> [SiteProblem] {
        var problems: [SiteProblem] = []
        func error(_ line: Int, _ key: String, _ message: String) { problems.append(SiteProblem(.error, line: line, key: key, message: message)) }
        if world.site.floors.isEmpty { error(0, "", "the site has no floors") }
        if world.site.nodes.isEmpty { error(0, "", "the site has no nodes: nothing would hear the devices") }
        for (i, node) in scenario.nodes.enumerated() where !world.site.nodes.contains(where: { $0.name == node.name }) {
            error(node.line, "nodes[\(i)].name", "the site has no node '\(node.name)'")
        }
        for device in scenario.devices {
            var placed = false
            for step in device.path {
                switch step.action {
                case let .waypoint(p, floor, _):
                    placed = true
                    if let floor, world.floorIndex(floor) == nil { error(step.line, step.key + ".floor", "the site has no floor '\(floor)'") }
                    else if floor == nil, world.floorIndex(containing: p) == nil {
                        problems.append(SiteProblem(.warning, line: step.line, key: step.key + ".at", message: "outside every floor's bounds"))
                    }
                case let .randomWalk(room, _):
                    placed = true
                    if world.room(named: room) == nil { error(step.line, step.key + ".random_walk", "the site has no room '\(room)'") }
                case .still, .away:
                    break
                }
            }
            if !placed { error(device.line, device.key + ".path", "a device needs a path with at least one 'at' or 'random_walk' step") }
        }
        return problems
    }

    /// The capture file name of a node: `<node>.btsnoop`, with `/` and control characters made
    /// `_`. A node name is any text: `/` would name another directory, and a NUL ends the path
    /// where the C call reads it (a node `truth.jsonl\0` wrote its capture into the truth file).
    public static func captureFileName(_ node: String) -> String {
        var safe = String.UnicodeScalarView()
        for c in node.unicodeScalars { safe.append(c == "/" || c.value < 0x20 || c.value == 0x7F ? "_" : c) }
        return String(safe) + ".btsnoop"
    }

    /// The key each phone uses, and whether the site or scenario gives it (else it is a stranger's).
    public var deviceKeys: [(id: String, irk: IdentityResolvingKey?, known: Bool)] {
        scenario.devices.indices.map { (scenario.devices[$0].id, keys[$0], known[$0]) }
    }
}

import BLE
import Wire
import SiteModel

extension Simulation {
    /// Runs the scenario, writing every capture, the readings and the truth to `output`.
    public func run(into output: inout some SimulationOutput) -> SimulationSummary {
        var state = makeState()
        let ticks = Int((scenario.duration / Self.tick).rounded(.up))
        for i in 0..<ticks {
            let s0 = Double(i) * Self.tick, s1 = min(Double(i + 1) * Self.tick, scenario.duration)
            writeTruth(from: s0, to: s1, state: &state)
            advertise(from: s0, to: s1, state: &state)
            publish(by: s1, final: i == ticks - 1, state: &state)
            // Hand bytes over every ten simulated seconds, so memory stays flat on long runs.
            if i % 40 == 39 || i == ticks - 1 { drain(&state, into: &output) }
        }
        return summary(state)
    }

    /// Everything that changes while the simulation runs.
    package struct RunState {
        package var devices: [Advertiser]
        var receivers: [Receiver]
        package let channel: Channel
        /// Per device: the state its cached means were computed for, and the mean per node
        /// (NaN when out of range). A device standing still costs no geometry.
        var cachedState: [Track.State?]
        var cachedMeans: [[Double]]
        /// One line at a time is encoded here, then appended to the file's pending bytes.
        var line = JSONWriter(capacity: 4096)
        var readingBytes: [UInt8] = []
        var truthBytes: [UInt8] = []
        var readings = 0
        var truthCount = 0
    }

    package func makeState() -> RunState {
        let (receivers, channel) = makeNodes()
        let devices = makeDevices()
        return RunState(devices: devices, receivers: receivers, channel: channel,
                        cachedState: Array(repeating: nil, count: devices.count),
                        cachedMeans: Array(repeating: Array(repeating: .nan, count: site.nodes.count), count: devices.count))
    }

    /// Each node's receiver and the channel to it: offsets, clocks and shadowing fields
    /// drawn from the node's own streams unless the scenario fixes them.
    private func makeNodes() -> ([Receiver], Channel) {
        let e = scenario.effects
        var receivers: [Receiver] = []
        var rxOffsets: [Double] = []
        var fields: [[ShadowingField]] = []
        for node in site.nodes {
            let setting = scenario.nodes.first { $0.name == node.name }
            var rng = RandomStream(seed: scenario.seed, label: "node/\(node.name)/hidden")
            let offset = rng.gaussian() * e.clockOffsetSD, drift = rng.gaussian() * e.clockDriftPPM, rx = rng.gaussian() * e.rxOffsetSD
            rxOffsets.append(setting?.rxOffset ?? rx)
            receivers.append(Receiver(name: node.name, clockOffset: setting?.clockOffset ?? offset,
                                      clockDrift: (setting?.clockDriftPPM ?? drift) * 1e-6, start: scenario.start, effects: e,
                                      rng: RandomStream(seed: scenario.seed, label: "node/\(node.name)/packets")))
            fields.append(site.floors.map { floor in
                var fieldRNG = RandomStream(seed: scenario.seed, label: "node/\(node.name)/field/\(floor.id)")
                return ShadowingField(sd: e.shadowingSD, correlation: e.shadowingCorrelation, rng: &fieldRNG)
            })
        }
        let exponent = e.pathLossExponent ?? site.positioning.absorption
        return (receivers, Channel(effects: e, world: world, slope: 10 * exponent, rxOffsets: rxOffsets, fields: fields))
    }

    private func makeDevices() -> [Advertiser] {
        scenario.devices.enumerated().map { d, spec in
            var builder = TrackBuilder(world: world, device: spec, rng: RandomStream(seed: scenario.seed, label: "device/\(spec.streamLabel)/motion"))
            // `prepare` made sure every device has a position, so the fallback (always away) never runs.
            let nowhere = Track.Spot(xy: Point2(0, 0), floor: 0)
            let track = builder.build(duration: scenario.duration)
                ?? Track(legs: [Track.Leg(start: 0, end: scenario.duration, from: nowhere, to: nowhere, heading: Point2(1, 0), away: true)],
                         height: spec.height)
            return Advertiser(spec: spec, track: track, irk: keys[d], named: known[d], effects: scenario.effects,
                              rng: RandomStream(seed: scenario.seed, label: "device/\(spec.streamLabel)/radio"))
        }
    }

    /// Every advertising event in [s0, s1), all devices merged in time order, through every node's channel.
    func advertise(from s0: Double, to s1: Double, state: inout RunState) {
        var events: [(s: Double, device: Int)] = []
        for d in state.devices.indices {
            while state.devices[d].nextEvent < s1 {
                events.append((state.devices[d].nextEvent, d))
                state.devices[d].scheduleNext()
            }
        }
        events.sort { ($0.s, $0.device) < ($1.s, $1.device) }
        for (s, d) in events {
            let now = state.devices[d].track.state(at: s, in: world)
            guard !now.away else { continue }
            state.devices[d].rotateIfDue(at: s)
            state.devices[d].countEvent()
            if state.cachedState[d] != now { refreshMeans(d, now, &state) }
            for n in state.receivers.indices {
                let mean = state.cachedMeans[d][n]
                guard !mean.isNaN, let rssi = state.channel.receive(mean: mean, rng: &state.receivers[n].rng) else { continue }
                state.receivers[n].hear(state.devices[d], rssi: rssi, at: s)
            }
        }
    }

    private func refreshMeans(_ d: Int, _ now: Track.State, _ state: inout RunState) {
        let device = state.devices[d]
        for n in state.receivers.indices {
            // A node does not report its own advertisements.
            state.cachedMeans[d][n] = n == device.spec.beaconOf || state.channel.outOfRange(now, txPower: device.truePower, node: n) ? .nan
                : state.channel.meanRSSI(now, txPower: device.truePower, bodyLoss: device.bodyLoss, node: n)
        }
        state.cachedState[d] = now
    }

    /// Batches published by true time `s1`, across nodes in the order they went out.
    func publish(by s1: Double, final: Bool, state: inout RunState) {
        var out: [(at: Double, node: Int, batch: Batch)] = []
        for n in state.receivers.indices {
            for (at, batch) in state.receivers[n].publish(by: s1, final: final) { out.append((at, n, batch)) }
        }
        out.sort { ($0.at, $0.node, $0.batch.seq) < ($1.at, $1.node, $1.batch.seq) }
        for item in out {
            state.line.reset()
            item.batch.encode(into: &state.line)
            state.readingBytes += state.line.bytes
            state.readingBytes.append(0x0A)
            state.readings += item.batch.readings.count
        }
    }

    func drain(_ state: inout RunState, into output: inout some SimulationOutput) {
        for n in state.receivers.indices {
            output.write(state.receivers[n].capture.drain(), to: .capture(n))
        }
        output.write(state.readingBytes, to: .readings)
        output.write(state.truthBytes, to: .truth)
        state.readingBytes.removeAll(keepingCapacity: true)
        state.truthBytes.removeAll(keepingCapacity: true)
    }
}

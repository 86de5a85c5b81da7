import Simulation
import Wire

/// How far the readings lie from the channel's own model at the devices' true positions: the
/// simulated counterpart of a real walk's residuals against its calibration.
public struct ReadingResiduals: Sendable {
    /// RMS (dB) against the model the engine holds: the announced power and the site's `rx_adj`.
    public var engine: Double
    /// RMS (dB) with each device's true power and each node's true offset in the model, as a
    /// calibration fitted on the data itself would have them: fading, shadowing and body.
    public var offsetsKnown: Double
    /// RMS (dB) of the same readings' means (no fading, no rounding) against that model: the
    /// fixed part of `offsetsKnown`, the shadowing and the body.
    public var fixed: Double
    public var count: Int
}

extension Simulation {
    /// Each reading against the channel's model (path loss, walls with open doorways, floors)
    /// at where its device truly was at the reading's time (the node's clock, off by tens of
    /// milliseconds). Readings of devices the scenario does not name are left out.
    public func residuals(of readings: [(node: String, reading: Reading)]) -> ReadingResiduals {
        let state = makeState()
        let channel = state.channel
        var devices: [String: Advertiser] = [:]
        for d in state.devices where d.spec.beaconOf == nil { devices[d.id] = d }
        var nodes: [String: Int] = [:]
        for (n, node) in site.nodes.enumerated() where nodes[node.name] == nil { nodes[node.name] = n }
        var engine = 0.0, known = 0.0, fixed = 0.0, count = 0
        // Per device, its last state and per node the model's gain and the mean there (NaN
        // until asked): readings come in bursts from one place.
        var cache: [String: (state: Track.State, gain: [Double], mean: [Double])] = [:]
        for (name, r) in readings {
            guard let device = devices[r.id], let n = nodes[name] else { continue }
            let now = device.track.state(at: r.t - scenario.start, in: world)
            guard !now.away else { continue }
            var entry = cache[r.id] ?? (now, [], [])
            if entry.state != now || entry.gain.isEmpty {
                entry = (now, Array(repeating: .nan, count: site.nodes.count), Array(repeating: .nan, count: site.nodes.count))
            }
            if entry.gain[n].isNaN {
                entry.gain[n] = -channel.pathLoss(now.position, node: n) - channel.obstruction(now.position.xy, floor: now.floor, node: n)
                entry.mean[n] = channel.meanRSSI(now, txPower: device.truePower, bodyLoss: device.bodyLoss, node: n)
            }
            cache[r.id] = entry
            let heard = Double(r.rssi), gain = entry.gain[n]
            let expected = Double(device.spec.txPower) - site.nodes[n].rxAdj + gain
            let truly = device.truePower + channel.rxOffsets[n] + gain
            engine += (heard - expected) * (heard - expected)
            known += (heard - truly) * (heard - truly)
            fixed += (entry.mean[n] - truly) * (entry.mean[n] - truly)
            count += 1
        }
        let c = Double(max(count, 1))
        return ReadingResiduals(engine: (engine / c).squareRoot(), offsetsKnown: (known / c).squareRoot(),
                                fixed: (fixed / c).squareRoot(), count: count)
    }
}

import Simulation
import Wire
import SiteModel

/// Which of the channel's fixed errors an oracle's observations keep; the rest it knows
/// and subtracts. Fading and packet loss are never there: the oracle sees each node's mean,
/// what infinite averaging of a still device would give.
public struct OracleVariant: Sendable, Hashable {
    /// Receiver offsets and the device's transmit error stay unknown: the oracle's model
    /// uses the announced power and the site's `rx_adj`, as the engine does.
    public var offsets: Bool
    /// The carrier's body (by heading) stays unknown.
    public var body: Bool
    /// The part of the scenario's shadowing field kept (1 the field as drawn, 0 none): the
    /// same field shape at another amplitude.
    public var shadowing: Double

    public init(offsets: Bool, body: Bool, shadowing: Double) {
        self.offsets = offsets; self.body = body; self.shadowing = shadowing
    }

    /// Everything the engine faces but fading and loss.
    public static let engine = OracleVariant(offsets: true, body: true, shadowing: 1)
    /// Receiver offsets and transmit errors known: shadowing and body only.
    public static let offsetsKnown = OracleVariant(offsets: false, body: true, shadowing: 1)
    /// Shadowing only.
    public static let shadowingOnly = OracleVariant(offsets: false, body: false, shadowing: 1)
    /// No error at all: the model is the channel, so the fix is the truth (a check of the search).
    public static let exact = OracleVariant(offsets: false, body: false, shadowing: 0)
}

/// The oracle's fixes of one device at one moment, one per variant asked for.
public struct OracleSample: Sendable {
    public var id: String
    /// Unix seconds, on the truth's clock.
    public var t: Double
    /// The true floor (an index into the site's floors) and position.
    public var floor: Int
    public var truth: Point3
    /// Nodes whose mean RSSI reaches the sensitivity: the nodes the fix uses.
    public var heard: Int
    /// Per variant, in the order asked: the maximum-likelihood position on the true floor.
    public var fixes: [Point2]
}

extension Simulation {
    /// The oracle's grid points per floor, unless told otherwise.
    public static let oracleGridPoints = 20_000
    /// The oracle grid's finest step (m): a small floor's grid is no finer than this.
    public static let oracleFinestStep = 0.05

    /// The best any locator with this channel's exact model could do: at each whole
    /// `period` of true time while a device (not a node's beacon) is present, each node's
    /// mean RSSI (no fading, no loss), the nodes whose full mean reaches the sensitivity,
    /// and the maximum-likelihood position under equal Gaussian errors in dB (least squares)
    /// on the device's true floor at its true height: a global search over a grid of about
    /// `gridPoints` points per floor (path loss and walls per node and point tabulated once),
    /// then Levenberg–Marquardt and a compass search from the best distinct points. A device
    /// whose state has not changed since the last sample keeps its fixes, as the means have not
    /// changed either. `period` is clamped to at least a millisecond and `gridPoints` to at
    /// least one (a period of 0 would have no end, a negative count no grid).
    public func oracle(_ variants: [OracleVariant], period: Double = 1, gridPoints: Int = Simulation.oracleGridPoints) -> [OracleSample] {
        let period = period.isFinite ? max(period, 0.001) : 1, gridPoints = max(gridPoints, 1)
        let state = makeState()
        var grid = OracleGrid(channel: state.channel, points: gridPoints)
        var out: [OracleSample] = []
        for device in state.devices where device.spec.beaconOf == nil {
            var last: (state: Track.State, sample: OracleSample)?
            let count = Int((scenario.duration / period).rounded(.down))
            for k in 0...count {
                let s = Double(k) * period
                let now = device.track.state(at: s, in: world)
                guard !now.away else { last = nil; continue }
                let t = scenario.start + s
                if let last, last.state == now {
                    var same = last.sample
                    same.t = t
                    out.append(same)
                    continue
                }
                let sample = oracleSample(device, now, t: t, variants: variants, channel: state.channel, grid: &grid)
                last = (now, sample)
                out.append(sample)
            }
        }
        return out
    }

    private func oracleSample(_ device: Advertiser, _ now: Track.State, t: Double, variants: [OracleVariant],
                              channel: Channel, grid: inout OracleGrid) -> OracleSample {
        let terms = OracleTerms(device, now, channel: channel, site: site)
        let fixes = variants.map { v in
            grid.fix(targets: terms.targets(v), nodes: terms.nodes, floor: now.floor, z: now.position.z)
        }
        return OracleSample(id: device.id, t: t, floor: now.floor, truth: now.position, heard: terms.nodes.count, fixes: fixes)
    }
}

/// One device's mean RSSI at each node it is heard by, split into the model's part and each
/// fixed error, so a variant can keep some errors and know the others.
struct OracleTerms {
    /// The nodes heard: their full mean (every fixed error in) reaches the sensitivity.
    var nodes: [Int] = []
    /// Per heard node: `-pathLoss - obstruction` at the true position, the shadowing, the
    /// body's loss, and the offset the oracle does not know (receiver offset, transmit error,
    /// less what the site's `rx_adj` corrects).
    var gain: [Double] = [], shadowing: [Double] = [], body: [Double] = [], offset: [Double] = []

    init(_ device: Advertiser, _ now: Track.State, channel: Channel, site: Site) {
        for n in site.nodes.indices where n != device.spec.beaconOf {
            let mean = channel.meanRSSI(now, txPower: device.truePower, bodyLoss: device.bodyLoss, node: n)
            guard mean >= channel.effects.sensitivity else { continue }
            nodes.append(n)
            gain.append(-channel.pathLoss(now.position, node: n) - channel.obstruction(now.position.xy, floor: now.floor, node: n))
            shadowing.append(channel.shadowing(now.position.xy, floor: now.floor, node: n))
            body.append(channel.body(now, bodyLoss: device.bodyLoss, node: n))
            // The engine adds rx_adj to what it hears, and expects the announced power.
            offset.append(device.truePower - Double(device.spec.txPower) + channel.rxOffsets[n] + site.nodes[n].rxAdj)
        }
    }

    /// Per heard node, the mean RSSI less the power the oracle's model expects at 1 m: what
    /// the model's `-pathLoss - obstruction` is fitted to.
    func targets(_ v: OracleVariant) -> [Double] {
        nodes.indices.map { i in
            gain[i] + (v.offsets ? offset[i] : 0) + v.shadowing * shadowing[i] - (v.body ? body[i] : 0)
        }
    }
}

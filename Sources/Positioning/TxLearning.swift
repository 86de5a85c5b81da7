import Wire
import SiteModel

/// Learning a device's real transmit power from its fixes (`Pipeline.txLearning`).
///
/// A device's power at 1 m differs from what its frames announce (or from the site's default),
/// and the body carrying it absorbs some: every distance is then off by the same factor, and
/// the fix is pulled toward or away from every node at once. The mean residual at each fix,
/// integrated slowly, learns that offset.
public struct TxLearningOptions: Sendable, Equatable {
    /// Seconds over which the offset follows the mean residual; 0 turns the learning off. Slow:
    /// a residual also holds the fix's own error, which averages out over a walk.
    public var timeConstant = 120.0
    /// The most the learned offset may reach, dB: more is a wrong fit, not a device.
    public var limit = 8.0
    /// One node's residual counts at most this many dB either way: a node behind a wall the
    /// site does not know is off by 20 dB, and would teach the offset the wall.
    public var residualLimit = 12.0
    /// Fixes from fewer nodes teach nothing: one or two fit any power.
    public var minimumNodes = 3

    public init() {}
}

/// The learning step of `TxLearningOptions`.
struct TxLearning {
    var options: TxLearningOptions

    /// Whether a fix from `fix.fixes` nodes may teach (the floor check is the engine's).
    func mayLearn(from fix: Fix) -> Bool { options.timeConstant > 0 && fix.fixes >= options.minimumNodes }

    /// The offset after one fix at `t`, `dt` after the last solve, from the observations on
    /// the fix's floor.
    func learned(_ offset: Double, fix: Fix, observations: [Observation], site: SiteGeometry, model: PathLoss, dt: Double) -> Double {
        var sum = 0.0, weight = 0.0
        for o in observations where site.nodes[Int(o.node)].floors.contains(fix.floor) {
            let walls = site.wallLoss(floor: fix.floor, from: fix.position.xy, to: o.position.xy)
            let expected = model.rssi(distance: distance(fix.position, o.position), txRef: o.txRef, walls: walls)
            let w = Double(min(o.samples, Observation.fullWeightSamples))
            sum += w * max(min(o.rssi - expected, options.residualLimit), -options.residualLimit)
            weight += w
        }
        guard weight > 0 else { return offset }
        let gain = min(min(max(dt, 0), EngineOptions.longestSolveGap) / options.timeConstant, 1)
        return max(min(offset + gain * sum / weight, options.limit), -options.limit)
    }
}

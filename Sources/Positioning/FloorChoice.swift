/// Which floor a device is on, chosen by solving on each floor its strongest nodes hear and
/// keeping the best-scored fix (`Engine.bestFix`).
///
/// The fit alone cannot choose: one or two nodes fit any floor perfectly (cost 0), and the
/// noise of a still device would flip it between floors of near-equal fits. So a floor that
/// three or more nodes fix beats one they do not, the floor tracked already wins near-ties,
/// and the default locator also counts the other floors' nodes heard louder than a fix on
/// this floor allows (`Locator.otherFloorsCost`).
public struct FloorChoiceOptions: Sendable, Equatable {
    /// A floor's score (its cost) is multiplied by this when the device is tracked on it:
    /// a fifth better is needed to leave the floor, not noise.
    public var trackedFloorFactor = 0.8
    /// Subtracted from the score per node that fixed it: of equal fits, the one more nodes fix.
    public var perNodeBonus = 0.01
    /// Nodes a fix needs to say anything of its floor: fewer fit every floor at cost 0.
    public var solidNodes = 3
    /// Added to the score of a fix from fewer than `solidNodes` nodes: it loses to any solid one.
    public var thinFixPenalty = 1_000.0

    public init() {}
}

/// The floor choice's scoring (`FloorChoiceOptions`).
struct FloorChoice {
    /// Floors solved at most per solve: those of the strongest nodes; each is a solve.
    static let floorsTried = 3

    var options: FloorChoiceOptions

    /// The score of `fix` (lower wins), `against` being the other floors' cost per node.
    @inline(__always)
    func score(_ fix: Fix, against: Double, isTrackedFloor: Bool) -> Double {
        (fix.cost + against) * (isTrackedFloor ? options.trackedFloorFactor : 1) - Double(fix.fixes) * options.perNodeBonus
            + (fix.fixes < options.solidNodes ? options.thinFixPenalty : 0)
    }

    /// Whether `fix` says something of its floor (`solidNodes`).
    @inline(__always)
    func isSolid(_ fix: Fix) -> Bool { fix.fixes >= options.solidNodes }
}

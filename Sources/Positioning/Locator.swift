import Wire
import SiteModel

/// What one node tells a solver about one device: where the node is and the device's
/// smoothed RSSI there (with the node's `rx_adj` applied).
struct Observation: Sendable {
    var node: Int32
    var position: Point3
    var rssi: Double
    /// The device's RSSI at 1 m.
    var txRef: Double
    /// Samples behind the smoothed RSSI.
    var samples: Int
    /// A node heard once or twice in the window counts less than one heard throughout it;
    /// from this many samples on, in full.
    static let fullWeightSamples = 3
    /// This observation's noise as a multiple of the locator's nominal spread (1 or more);
    /// the default locator sets it per solve (`Multilateration.rangeFloor`).
    var spread: Double = 1
    /// Wall attenuation on the line of sight from the current estimate; solvers refresh it.
    var walls: Double = 0
}

/// A position estimate from one solve, before tracking.
struct Fix: Sendable {
    var position: Point3
    var floor: Int
    /// Horizontal covariance (m²) and vertical variance of the estimate.
    var xx: Double, xy: Double, yy: Double, zz: Double
    /// 0...1: how much to trust this fix, from residuals, geometry and node count.
    var confidence: Double
    /// Nodes that contributed.
    var fixes: Int
    /// Mean robust cost per observation (lower fits better); compares floors.
    var cost: Double
    /// Set by `Engine.bestFix`: the fix's floor won against another floor that three or more
    /// nodes fixed too, so the floor is the fit's own finding (the room test then counts a
    /// change of floor in full), not the only floor it could solve.
    var floorContested = false
}

/// The locators a site can use, selectable by name on the command line.
public enum LocatorKind: String, Sendable, CaseIterable {
    /// Robust weighted multilateration in dB space (Levenberg–Marquardt with a Huber loss).
    case `default`
    /// The strongest node's position: what nearest-room systems report.
    case nearest
    /// ESPresense-companion's approach: Nelder–Mead on distance residuals with a fitted scale.
    case nelderMead = "nelder-mead"

}

/// A solver: observations of one device on one floor → a fix.
protocol Locator: Sendable {
    /// `hint` is the tracker's predicted position, when there is one.
    func locate(_ observations: inout [Observation], floor: Int, site: SiteGeometry,
                model: PathLoss, hint: Point3?) -> Fix?
    /// What the nodes of other floors say against a fix on `fix.floor`, in the fix's cost units
    /// (summed, not a mean); 0 for a locator that does not weigh them.
    func otherFloorsCost(_ observations: [Observation], fix: Fix, site: SiteGeometry, model: PathLoss) -> Double
    /// Whether it searches the floor's path-loss grid (`LossGrid`), which the engine then builds.
    var searchesGrid: Bool { get }
}

extension Locator {
    func otherFloorsCost(_ observations: [Observation], fix: Fix, site: SiteGeometry, model: PathLoss) -> Double { 0 }
    var searchesGrid: Bool { false }
}

extension LocatorKind {
    func makeLocator() -> any Locator {
        switch self {
        case .default: Multilateration()
        case .nearest: NearestNodeLocator()
        case .nelderMead: NelderMeadLocator()
        }
    }
}

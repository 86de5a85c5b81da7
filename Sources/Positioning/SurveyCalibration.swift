import Wire
import SiteModel

/// A path-loss calibration fitted from a site survey: readings of devices at known points.
///
/// The model is the engine's (`PathLoss` with the site's walls, `SiteGeometry.wallLoss`): node
/// `j` hearing device `k` at distance `d` reads `rssi + rx_adj_j = tx_ref_k - 10·n·log10(d) - walls`.
/// Fitted are `n` (the site's `absorption`), each node's `rx_adj` and each device's `tx_ref`, by
/// least squares over cells (a node hearing a device around one point, its median RSSI),
/// reweighted (Huber). The gauge is mean `rx_adj` 0 over the nodes fitted: the devices' `tx_ref`
/// carry the common level. The exponent is also fitted per floor and per node, for the report
/// only: the engine has one exponent.
public struct SurveyCalibration: Sendable {
    public struct NodeFit: Sendable {
        public var name: String
        /// `nil`: not fitted (heard at fewer than `minimumCells` cells).
        public var rxAdj: Double?
        public var readings: Int, cells: Int
        /// RMS of the node's cells' residuals (dB), and its nearest and farthest surveyed distance (m).
        public var rms: Double, nearest: Double, farthest: Double
        /// The node's exponent and RMS when each node has its own exponent.
        public var ownExponent: Double?, ownRMS: Double?
    }

    public struct DeviceFit: Sendable {
        public var id: String
        public var txRef: Double
        public var readings: Int, cells: Int, rms: Double
    }

    public struct FloorFit: Sendable {
        public var id: String
        /// `nil`: the floor has no survey cells.
        public var absorption: Double?
        public var cells: Int
    }

    /// A place on a floor farther than `thinRadius` from every surveyed point.
    public struct Thin: Sendable {
        public var floor: String
        public var at: Point2
        public var nearest: Double
    }

    public var absorption: Double
    public var floors: [FloorFit]
    public var nodes: [NodeFit]
    public var devices: [DeviceFit]
    public var thin: [Thin]
    /// The share of each floor's area farther than `thinRadius` from any surveyed point.
    public var thinShare: [String: Double]
    /// Readings used, outside the truth's spans, from nodes the site lacks, of other devices,
    /// and of those used, the ones in faint cells (a node hearing half the packets sent there or fewer).
    public var used: Int, outside: Int, unknownNode: Int, otherDevice: Int, faint: Int
    /// Robust RMS of all cells' residuals with one exponent, and with one per node (dB).
    public var rms: Double, rmsPerNodeExponent: Double
    /// The residuals' map (`RadioMap`), one layer per fitted node and floor, and how well each fits.
    public var radioMap: RadioMap
    public var mapFits: [MapFit]

    /// A node's `rx_adj` is fitted from this many cells or more.
    public static let minimumCells = 3
    /// The floor is checked for thin survey on a grid this fine (m) ...
    public static let thinStep = 2.0
    /// ... and a grid point farther than this from every surveyed point is thin (m).
    public static let thinRadius = 3.0

    /// The parameters the engine takes: the site's absorption, the fitted nodes' `rx_adj`, the devices' `tx_ref`
    /// and the radio map.
    public var siteCalibration: SiteCalibration {
        var rx: [String: Double] = [:], tx: [String: Double] = [:]
        for n in nodes { if let a = n.rxAdj { rx[n.name] = a } }
        for d in devices { tx[d.id] = d.txRef }
        return SiteCalibration(absorption: absorption, rxAdj: rx, txRef: tx, radioMap: radioMap)
    }

    /// Fits `readings` (in any order) against `truth`; with `device`, only that device's readings.
    public static func fit(readings: [(node: String, reading: Reading)], truth: TruthTrack, site: Site,
                           device: String? = nil) -> Result<SurveyCalibration, SurveyFailure> {
        var data = SurveyCells(readings: readings, truth: truth, site: site, device: device)
        let truthSpan = (truth.rows.first?.t ?? 0)...(truth.rows.last?.t ?? 0)
        if let device, data.used == 0 {
            let all = SurveyCells(readings: readings, truth: truth, site: site, device: nil)
            if all.used > 0 { return .failure(.deviceNeverHeard(device, heard: all.devices)) }
        }
        guard data.used > 0 else { return .failure(.noOverlap(readings: data.span, truth: truthSpan)) }
        var perNode = [Int](repeating: 0, count: site.nodes.count)
        for c in data.cells { perNode[c.node] += 1 }
        let fitted = site.nodes.indices.filter { perNode[$0] >= minimumCells }
        data.cells.removeAll { perNode[$0.node] < minimumCells }
        let need = fitted.count + data.devices.count + 2
        guard !fitted.isEmpty, data.cells.count >= need else {
            return .failure(.tooFewPoints(have: data.cells.count, need: max(need, minimumCells + 3), nodes: fitted.map { site.nodes[$0].name }))
        }
        let column = Dictionary(uniqueKeysWithValues: fitted.enumerated().map { ($1, $0) })
        func system(_ group: (SurveyCell) -> Int, groups: Int) -> SurveySystem {
            var s = SurveySystem(groups: groups, nodes: fitted.count, devices: data.devices.count)
            for c in data.cells {
                s.rows.append(.init(group: group(c), node: column[c.node]!, device: c.device, basis: c.basis,
                                    y: c.level + c.walls, weight: SurveyCells.weight(c)))
            }
            return s
        }
        guard let shared = system({ _ in 0 }, groups: 1).robustFit() else { return .failure(.distancesAlike) }
        guard (1...6).contains(shared.exponents[0]) else { return .failure(.absorptionOutOfRange(shared.exponents[0])) }
        // Floors without survey cells get no exponent (their column would be all zero).
        let floors = Array(Set(data.cells.map(\.floor))).sorted()
        let floorGroup = Dictionary(uniqueKeysWithValues: floors.enumerated().map { ($1, $0) })
        let byFloor = system({ floorGroup[$0.floor]! }, groups: floors.count).robustFit()
        let byNode = system({ column[$0.node]! }, groups: fitted.count).robustFit()
        return .success(SurveyCalibration(site: site, data: data, fitted: fitted, shared: shared,
                                             byFloor: byFloor.map { (floors, $0.exponents) }, byNode: byNode))
    }
}

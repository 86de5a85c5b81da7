import Wire
import SiteModel

extension SurveyCalibration {
    /// The calibration of solved systems: `shared` (one exponent, applied), `byFloor` (the
    /// floors with cells and their exponents) and `byNode` (an exponent per fitted node), reported.
    init(site: Site, data: SurveyCells, fitted: [Int], shared: SurveySystem.Solution,
         byFloor: (floors: [Int], exponents: [Double])?, byNode: SurveySystem.Solution?) {
        absorption = shared.exponents[0]
        (used, outside, unknownNode, otherDevice) = (data.used, data.outside, data.unknownNode, data.otherDevice)
        faint = data.faint
        rms = Self.rms(shared.residuals)
        rmsPerNodeExponent = byNode.map { Self.rms($0.residuals) } ?? .nan
        let column = Dictionary(uniqueKeysWithValues: fitted.enumerated().map { ($1, $0) })
        nodes = site.nodes.indices.map { j in
            let rows = data.cells.indices.filter { data.cells[$0].node == j }
            let distances = rows.map { data.cells[$0].distance }
            let readings = rows.reduce(0) { $0 + data.cells[$1].rssi.count }
            guard let col = column[j] else {
                return NodeFit(name: site.nodes[j].name, rxAdj: nil, readings: readings, cells: rows.count, rms: .nan,
                               nearest: distances.min() ?? .nan, farthest: distances.max() ?? .nan)
            }
            return NodeFit(name: site.nodes[j].name, rxAdj: -shared.offsets[col], readings: readings, cells: rows.count,
                           rms: Self.rms(rows.map { shared.residuals[$0] }), nearest: distances.min() ?? .nan,
                           farthest: distances.max() ?? .nan, ownExponent: byNode?.exponents[col],
                           ownRMS: byNode.map { s in Self.rms(rows.map { s.residuals[$0] }) })
        }
        devices = data.devices.indices.map { k in
            let rows = data.cells.indices.filter { data.cells[$0].device == k }
            return DeviceFit(id: data.devices[k], txRef: shared.powers[k], readings: rows.reduce(0) { $0 + data.cells[$1].rssi.count },
                             cells: rows.count, rms: Self.rms(rows.map { shared.residuals[$0] }))
        }
        floors = site.floors.indices.map { f in
            let cells = data.cells.filter { $0.floor == f }.count
            let exponent = byFloor.flatMap { b in b.floors.firstIndex(of: f).map { b.exponents[$0] } }
            return FloorFit(id: site.floors[f].id, absorption: exponent, cells: cells)
        }
        (thin, thinShare) = Self.thinPlaces(site: site, cells: data.cells)
        (radioMap, mapFits) = Self.radioMap(site: site, cells: data.cells, residuals: shared.residuals, fitted: fitted)
    }

    static func rms(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }

    /// The grid points of each floor (every `thinStep` m within its bounds) farther than
    /// `thinRadius` from every surveyed point on that floor.
    static func thinPlaces(site: Site, cells: [SurveyCell]) -> ([Thin], [String: Double]) {
        var thin: [Thin] = [], share: [String: Double] = [:]
        for (f, floor) in site.floors.enumerated() {
            let points = cells.filter { $0.floor == f }.map { Point2($0.x, $0.y) }
            let (lo, hi) = (floor.bounds.min, floor.bounds.max)
            var total = 0, far = 0
            var y = lo.y + thinStep / 2
            while y < hi.y {
                var x = lo.x + thinStep / 2
                while x < hi.x {
                    total += 1
                    let nearest = points.map { (($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y)).squareRoot() }.min() ?? .infinity
                    if nearest > thinRadius {
                        far += 1
                        thin.append(Thin(floor: floor.id, at: Point2(x, y), nearest: nearest))
                    }
                    x += thinStep
                }
                y += thinStep
            }
            share[floor.id] = total > 0 ? Double(far) / Double(total) : 0
        }
        return (thin, share)
    }
}

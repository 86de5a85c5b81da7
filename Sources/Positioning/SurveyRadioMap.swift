import Wire
import SiteModel

extension SurveyCalibration {
    /// How well one node's layer of the radio map fits: the RMS (dB) of its points' residuals
    /// under the model alone, with the map (in-sample), and with the map each point left out of
    /// (held out: what the map is worth where the survey did not stand), and the share of each
    /// floor it hears farther than `thinRadius` from every point it was heard at (there the map
    /// is the model).
    public struct MapFit: Sendable {
        public var node: String
        public var floor: String
        public var points: Int
        public var rmsModel: Double, rmsMap: Double, rmsHeldOut: Double
        public var thin: Double
    }

    /// The kernel widths (m) and model weights tried; the pair with the least held-out error
    /// over every layer is the map's.
    static let bandwidths = [1.0, 1.5, 2.0, 3.0]
    static let priors = [0.5, 1.0, 2.0]
    /// The largest correction either way, dB: beyond, a point says more about the moment
    /// (a body, a door) than about the place.
    static let mapLimit = 10.0

    /// The radio map of `cells` (their `residuals` under the fit), one layer per fitted node and
    /// floor, with the width and weight that predict the points left out best.
    static func radioMap(site: Site, cells: [SurveyCell], residuals: [Double], fitted: [Int]) -> (RadioMap, [MapFit]) {
        var layers: [RadioMap.Layer] = []
        for j in fitted {
            for f in site.floors.indices {
                let points = cells.indices.filter { cells[$0].node == j && cells[$0].floor == f }.map { i in
                    RadioMap.Point(x: cells[i].x, y: cells[i].y, residual: min(max(residuals[i], -mapLimit), mapLimit),
                                   weight: SurveyCells.weight(cells[i]))
                }
                if !points.isEmpty { layers.append(.init(node: site.nodes[j].name, floor: site.floors[f].id, points: points)) }
            }
        }
        var best = RadioMap(bandwidth: bandwidths[0], prior: priors[0], limit: mapLimit, layers: layers)
        var bestError = Double.infinity
        for h in bandwidths {
            for prior in priors {
                let map = RadioMap(bandwidth: h, prior: prior, limit: mapLimit, layers: layers)
                let error = layers.reduce(0.0) { $0 + heldOut(map, $1).reduce(0) { $0 + $1 * $1 } }
                if error < bestError { (best, bestError) = (map, error) }
            }
        }
        let fits = layers.map { layer in
            let model = layer.points.map(\.residual)
            let inSample = layer.points.map { $0.residual - best.correction(layer, x: $0.x, y: $0.y) }
            let floor = site.floors.first { $0.id == layer.floor }!
            return MapFit(node: layer.node, floor: layer.floor, points: layer.points.count, rmsModel: rms(model),
                          rmsMap: rms(inSample), rmsHeldOut: rms(heldOut(best, layer)),
                          thin: thinShare(floor.bounds, points: layer.points.map { Point2($0.x, $0.y) }))
        }
        return (best, fits)
    }

    /// Each point's residual less the map's correction there without it.
    static func heldOut(_ map: RadioMap, _ layer: RadioMap.Layer) -> [Double] {
        layer.points.indices.map { i in
            layer.points[i].residual - map.correction(layer, x: layer.points[i].x, y: layer.points[i].y, except: i)
        }
    }

    /// The share of the grid points of `bounds` (every `thinStep` m) farther than `thinRadius`
    /// from each of `points`.
    static func thinShare(_ bounds: (min: Point3, max: Point3), points: [Point2]) -> Double {
        var total = 0, far = 0
        var y = bounds.min.y + thinStep / 2
        while y < bounds.max.y {
            var x = bounds.min.x + thinStep / 2
            while x < bounds.max.x {
                total += 1
                let near = points.contains { p in (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y) <= thinRadius * thinRadius }
                if !near { far += 1 }
                x += thinStep
            }
            y += thinStep
        }
        return total > 0 ? Double(far) / Double(total) : 0
    }
}

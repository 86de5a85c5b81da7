import Wire
import SiteModel

/// The Nelder–Mead baseline, after ESPresense-companion's multilateralizer.
///
/// It minimises weighted squared differences, in metres, between the node distances of a
/// candidate point times a fitted scale and the distances the path-loss model implies,
/// over (x, y, z, scale) with the scale pulled toward 1 and the point kept in the floor's
/// box by a steep penalty. Nodes are weighted by rank of distance with a Gaussian.
struct NelderMeadLocator: Locator {
    var maxEvaluations = 2000
    var tolerance = 1e-7

    /// The first simplex's steps (m, and the scale's): half a metre across the floor and a
    /// quarter up, leaning toward the strongest nodes, as ESPresense-companion starts.
    static let startSteps = SIMD4<Double>(0.5, 0.5, 0.25, 0.05)
    /// The least spread (m) a fix is given: the fit's residual is no covariance.
    static let leastSpread = 0.5
    /// The fitted scale's bounds, and how steeply the objective rises outside them and the
    /// floor's box (a power of this base) and away from a scale of 1 (this many times).
    static let scaleBounds = (low: 0.5, high: 1.5)
    static let penaltyBase = 5.0, scalePull = 5.0

    func locate(_ obs: inout [Observation], floor: Int, site: SiteGeometry, model: PathLoss, hint: Point3?) -> Fix? {
        guard obs.count >= 3 else {
            return obs.count == 1 ? FewNodes.one(obs[0], floor: floor, site: site, model: model, hint: hint)
                : obs.count == 2 ? FewNodes.two(obs[0], obs[1], floor: floor, site: site, model: model) : nil
        }
        let objective = Objective(obs: obs, model: model, box: site.floors[floor])
        let start = site.clamp(hint ?? FewNodes.centroidOfStrongest(obs), floor: floor)
        let centroid = FewNodes.centroidOfStrongest(obs)
        var toward = (centroid.x - start.x, centroid.y - start.y, centroid.z - start.z)
        let len = (toward.0 * toward.0 + toward.1 * toward.1 + toward.2 * toward.2).squareRoot()
        toward = len > FewNodes.noLength ? (toward.0 / len, toward.1 / len, toward.2 / len) : (1, 0, 0)
        var simplex = Simplex4(start: SIMD4(start.x, start.y, start.z, 1),
                               steps: SIMD4(toward.0, toward.1, toward.2, 0) + Self.startSteps,
                               f: objective.value)
        simplex.minimise(f: objective.value, maxEvaluations: maxEvaluations, tolerance: tolerance)
        let best = simplex.best
        let p = site.clamp(Point3(best.x, best.y, best.z), floor: floor)
        let spread = max(simplex.bestValue.squareRoot(), Self.leastSpread)
        return Fix(position: p, floor: floor, xx: spread * spread, xy: 0, yy: spread * spread, zz: 1,
                   confidence: 1 / (1 + spread), fixes: obs.count, cost: simplex.bestValue)
    }

    private struct Objective {
        var nodes: [Point3] = []
        var distances: [Double] = []
        var weights: [Double] = []
        var weightSum = 0.0
        var box: SiteGeometry.FloorInfo

        init(obs: [Observation], model: PathLoss, box: SiteGeometry.FloorInfo) {
            self.box = box
            let sorted = obs.map { (p: $0.position, d: model.distance(rssi: $0.rssi, txRef: $0.txRef)) }.sorted { $0.d < $1.d }
            let n = Double(sorted.count)
            for (rank, item) in sorted.enumerated() {
                nodes.append(item.p)
                distances.append(item.d)
                let u = Double(rank) / max(n / 2, 1)
                weights.append(Elementary.exp(-u * u / 2))
            }
            weightSum = weights.reduce(0, +)
        }

        func value(_ v: SIMD4<Double>) -> Double {
            let bounds = NelderMeadLocator.scaleBounds
            let lo = SIMD4(box.min.x, box.min.y, box.min.z, bounds.low), hi = SIMD4(box.max.x, box.max.y, box.max.z, bounds.high)
            let outside = pointwiseMax(pointwiseMax(lo - v, v - hi), SIMD4(repeating: 0))
            let off = (outside * outside).sum().squareRoot()
            let base = NelderMeadLocator.penaltyBase, pull = NelderMeadLocator.scalePull
            var sum = off > 0 ? Elementary.exp((1 + off) * Elementary.log(base)) : 0
            sum += (pull * (1 - v.w)) * (pull * (1 - v.w))
            var fit = 0.0
            for i in nodes.indices {
                let e = distance(Point3(v.x, v.y, v.z), nodes[i]) * v.w - distances[i]
                fit += weights[i] * e * e
            }
            return sum + fit / weightSum
        }
    }
}

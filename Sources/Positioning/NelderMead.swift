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
        toward = len > 1e-6 ? (toward.0 / len, toward.1 / len, toward.2 / len) : (1, 0, 0)
        var simplex = Simplex4(start: SIMD4(start.x, start.y, start.z, 1),
                               steps: SIMD4(toward.0 + 0.5, toward.1 + 0.5, toward.2 + 0.25, 0.05),
                               f: objective.value)
        simplex.minimise(f: objective.value, maxEvaluations: maxEvaluations, tolerance: tolerance)
        let best = simplex.best
        let p = site.clamp(Point3(best.x, best.y, best.z), floor: floor)
        let spread = max(simplex.bestValue.squareRoot(), 0.5)
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
            let lo = SIMD4(box.min.x, box.min.y, box.min.z, 0.5), hi = SIMD4(box.max.x, box.max.y, box.max.z, 1.5)
            let outside = pointwiseMax(pointwiseMax(lo - v, v - hi), SIMD4(repeating: 0))
            let off = (outside * outside).sum().squareRoot()
            var sum = off > 0 ? Elementary.exp((1 + off) * Elementary.log(5)) : 0
            sum += (5 * (1 - v.w)) * (5 * (1 - v.w))
            var fit = 0.0
            for i in nodes.indices {
                let e = distance(Point3(v.x, v.y, v.z), nodes[i]) * v.w - distances[i]
                fit += weights[i] * e * e
            }
            return sum + fit / weightSum
        }
    }
}

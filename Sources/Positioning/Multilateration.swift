import Wire
import SiteModel

/// The default locator: robust weighted multilateration in 3-D inside the floor's box.
///
/// Residuals are in dB (measured minus modelled RSSI): shadowing is roughly log-normal, so
/// errors are closer to Gaussian there than in metres, and near nodes — where a metre
/// changes the RSSI most — weigh most through the Jacobian itself. A Huber loss bounds the
/// pull of a node whose reading is off (a body, a door, a reflection); Levenberg–Marquardt
/// keeps steps safe near nodes where the model is steep. One or two nodes cannot fix a
/// position: those cases fall back to the strongest node or the line between two.
struct Multilateration: Locator {
    /// Nominal shadowing spread, dB: scales residuals for the loss and the covariance.
    var sigma = 6.0
    /// Huber threshold in units of `sigma`.
    var huber = 1.5
    var iterations = 20
    /// The warm start is kept when its mean robust cost per node is below this (0.5 is a node
    /// off by one `sigma`)…
    var warmCost = 0.3
    /// …and it ended within this many metres of the prediction.
    var warmReach = 0.5
    /// Metres of range the model cannot resolve to any node (where the antennas sit on the
    /// node and on the carrier, the device's unknown height). In dB that is `slope · floor / d`:
    /// nothing beyond a couple of metres, as much as `sigma` itself at 0.3 m, so a node heard
    /// as if it were right beside the device cannot drag the fix onto itself alone. Joins
    /// `sigma` in quadrature; 0 turns it off.
    var rangeFloor = 0.25

    var searchesGrid: Bool { true }

    /// Passes with the walls of the last solution held: walls make the model piecewise, and a
    /// solution rarely sees other walls more than twice.
    static let wallPasses = 3
    /// Without a height prior or a tracked height, the fit is retried from starts this high
    /// (shares of the floor's height, low and high): height trades against distance on the
    /// floor, which leaves mirror minima above and below the nodes.
    static let retryHeights = stride(from: 0.2, through: 0.8, by: 0.6)
    /// Levenberg–Marquardt's damping: where it starts (close to Gauss–Newton, which the model
    /// suits away from nodes), how much a step that helped lowers it and one that did not
    /// raises it, and its bounds (beyond the upper no step helps: the minimum is found).
    static let startDamping = 1e-3, dampingDown = 3.0, dampingUp = 4.0
    static let leastDamping = 1e-6, greatestDamping = 1e4
    /// Added to the normal matrix's diagonal so that a flat direction (collinear nodes) can
    /// still be inverted.
    static let diagonalJitter = 1e-9
    /// A step shorter than this (m), a tenth of a millimetre, ends the fit: far below what
    /// RSSI can resolve.
    static let converged = 1e-4
    /// The grid's best cell is solved from too when it lies farther than this (m) from the
    /// warm start's solution: it may be another basin.
    static let otherBasin = 1.0

    func locate(_ obs: inout [Observation], floor: Int, site: SiteGeometry, model: PathLoss, hint: Point3?) -> Fix? {
        switch obs.count {
        case 0: return nil
        case 1: return FewNodes.one(obs[0], floor: floor, site: site, model: model, hint: hint)
        case 2: return FewNodes.two(obs[0], obs[1], floor: floor, site: site, model: model)
        default: break
        }
        var problem = Problem(sigma: sigma, huber: huber, slope: model.slope, floor: floor)
        widenNearNodes(&obs, model: model)
        if let h = site.deviceHeight { problem.height = site.floors[floor].min.z + h }
        // A warm start: when the solve from the track's prediction ends near it and fits well,
        // the global search is skipped (it is most of a solve's cost on a big floor).
        var best: Solution?
        if let hint {
            let start = site.clamp(hint, floor: floor)
            let warm = solve(problem, &obs, from: start, site: site, tracked: true)
            if warm.at.cost < warmCost * Double(obs.count), distance(warm.x, start) < warmReach {
                return problem.fix(obs, at: warm.x, warm.at)
            }
            best = warm
        }
        let searched = site.grids.indices.contains(floor) ? site.grids[floor].best(obs, problem: problem) : nil
        if var found = best {
            // The track's basin may be the wrong one: when the grid's best cell lies elsewhere,
            // solve from there too and keep whichever fits better.
            if let searched, distance(searched, found.x) > Self.otherBasin {
                let other = solve(problem, &obs, from: site.clamp(searched, floor: floor), site: site, tracked: true)
                if other.at.cost < found.at.cost { found = other }
            }
            best = found
        } else {
            best = solve(problem, &obs, from: site.clamp(searched ?? FewNodes.centroidOfStrongest(obs), floor: floor),
                         site: site, tracked: false)
        }
        guard let best else { return nil }
        return problem.fix(obs, at: best.x, best.at)
    }

    /// The robust cost of the nodes not on the fix's floor that hear the device louder than the
    /// model allows at the fix with nothing in between. A floor (and a wall) only takes power
    /// away, by an amount the site does not give, so a node of another floor heard quieter than
    /// that says nothing, but one heard louder contradicts the fix's floor: a device at the foot
    /// of the stairs, 1 m from the hall's node, is not 2.5 m above it on the landing however well
    /// the landing's own three nodes fit. One-sided Huber in units of `sigma` (with the range
    /// floor), weighed like the fit's own residuals.
    func otherFloorsCost(_ obs: [Observation], fix: Fix, site: SiteGeometry, model: PathLoss) -> Double {
        var cost = 0.0
        for o in obs where !site.nodes[Int(o.node)].floors.contains(fix.floor) {
            let implied = model.distance(rssi: o.rssi, txRef: o.txRef)
            let near = model.slope * rangeFloor / (sigma * implied)
            let spread = (1 + near * near).squareRoot()
            let loudest = model.rssi(distance: distance(fix.position, o.position), txRef: o.txRef)
            let e = (o.rssi - loudest) / (sigma * spread)
            guard e > 0 else { continue }
            cost += Problem.weight(samples: o.samples) * (e <= huber ? 0.5 * e * e : huber * (e - 0.5 * huber))
        }
        return cost
    }

    /// Sets each observation's `spread`: the nominal `sigma` and the range floor's dB, in
    /// quadrature, at the distance the observation's RSSI implies (known before the solve,
    /// so the weights stay fixed while it runs).
    func widenNearNodes(_ obs: inout [Observation], model: PathLoss) {
        guard rangeFloor > 0 else { return }
        for i in obs.indices {
            let implied = model.distance(rssi: obs[i].rssi, txRef: obs[i].txRef)
            let near = model.slope * rangeFloor / (sigma * implied)
            obs[i].spread = (1 + near * near).squareRoot()
        }
    }

    /// A solve's point with the cost and normal equations there, the walls it sees included.
    private typealias Solution = (x: Point3, at: Problem.Evaluation)

    /// Minimises from `start` with walls held, re-solving while the solution sees other walls.
    /// The solution comes with its evaluation, so that neither the choice between passes nor
    /// the fix evaluates the same point again (an eighth of all evaluations on the house scenario).
    private func solve(_ problem: Problem, _ obs: inout [Observation], from start: Point3, site: SiteGeometry,
                       tracked: Bool) -> Solution {
        // Walls make the model piecewise: solve with the walls of the current estimate held,
        // then again if the solution sees different walls (rarely more than twice).
        var x = start
        var walls = problem.refreshWalls(&obs, at: x, site: site).total
        var best: Solution?
        for _ in 0..<Self.wallPasses {
            var pass = minimise(problem, obs, from: x, site: site)
            // Height trades against distance on the floor, which leaves mirror minima above
            // and below the nodes: without a height prior or a tracked height to start
            // from, try again from a low and a high start and keep the best.
            let f = site.floors[problem.floor]
            for height in Self.retryHeights where !tracked && problem.height == nil {
                let z = f.min.z + (f.max.z - f.min.z) * height
                let retry = minimise(problem, obs, from: Point3(pass.x.x, pass.x.y, z), site: site)
                if retry.at.cost < pass.at.cost { pass = retry }
            }
            x = pass.x
            let seen = problem.refreshWalls(&obs, at: x, site: site)
            // Judge each pass by the cost with the walls its own solution sees.
            if seen.changed { pass.at = problem.evaluate(obs, at: x) }
            if pass.at.cost < best?.at.cost ?? .infinity { best = pass }
            if seen.total == walls { break }
            walls = seen.total
        }
        if let best { return best }
        // No pass had a finite cost (an observation that is not finite): the start stands.
        problem.refreshWalls(&obs, at: start, site: site)
        var atStart = problem.evaluate(obs, at: start)
        atStart.cost = .infinity
        return (start, atStart)
    }

    /// Levenberg–Marquardt from `start`, steps clamped to the floor's box. Each evaluation
    /// yields the cost and the normal equations together: one logarithm per node and step.
    private func minimise(_ problem: Problem, _ obs: [Observation], from start: Point3, site: SiteGeometry) -> Solution {
        var x = start
        var current = problem.evaluate(obs, at: x)
        var lambda = Self.startDamping
        for _ in 0..<iterations {
            let a = current.normal
            var damped = a
            let jitter = Self.diagonalJitter
            damped.xx += lambda * a.xx + jitter; damped.yy += lambda * a.yy + jitter; damped.zz += lambda * a.zz + jitter
            guard let inverse = damped.inverse else { break }
            let g = current.gradient
            let step = inverse.times((-g.0, -g.1, -g.2))
            let candidate = site.clamp(Point3(x.x + step.0, x.y + step.1, x.z + step.2), floor: problem.floor)
            let next = problem.evaluate(obs, at: candidate)
            if next.cost < current.cost {
                let moved = distance(candidate, x)
                x = candidate; current = next
                lambda = max(lambda / Self.dampingDown, Self.leastDamping)
                if moved < Self.converged { break }
            } else {
                lambda *= Self.dampingUp
                if lambda > Self.greatestDamping { break }
            }
        }
        return (x, current)
    }
}

/// The robust least-squares problem of one solve.
struct Problem {
    var sigma: Double
    var huber: Double
    var slope: Double
    var floor: Int
    /// Where a carried device usually is (absolute z), as a soft prior: height is what RSSI
    /// resolves worst, and a free height trades against distance on the floor.
    var height: Double?
    /// Spread of that prior, m.
    var heightSpread = 0.4

    /// Added to the normal matrix's diagonal before it is inverted for the covariance (m⁻²),
    /// and the variance (m²) given when it still cannot be, or at most vertically: 10 m.
    static let covarianceRidge = 1e-3, unknownVariance = 100.0
    /// The most a fix's horizontal variance may be, m² (20 m): beyond, a fix says nothing.
    static let greatestVariance = 400.0
    /// A fix whose horizontal spread (m) squared is this has half the confidence (a 2 m spread)…
    static let halfConfidenceSpread2 = 4.0
    /// …and fewer nodes than this lower it in proportion: three fit exactly, a fourth checks.
    static let fullConfidenceNodes = 4.0

    /// Sets each observation's wall loss for an estimate at `x`; returns their weighted sum,
    /// which tells whether a new estimate sees other walls, and whether any observation's
    /// loss changed (an evaluation made before still holds when none did).
    @discardableResult
    func refreshWalls(_ obs: inout [Observation], at x: Point3, site: SiteGeometry) -> (total: Double, changed: Bool) {
        guard site.floors.indices.contains(floor), !site.floors[floor].walls.isEmpty || !site.radioMap.isEmpty else { return (0, false) }
        var total = 0.0, changed = false
        let mapped = !site.radioMap.isEmpty
        for i in obs.indices {
            let walls = site.extraLoss(node: Int(obs[i].node), floor: floor, at: x.xy)
            if walls != obs[i].walls { changed = true }
            obs[i].walls = walls
            // A radio map varies smoothly: only a change of about a decibel asks for another pass.
            total += (mapped ? walls.rounded() : walls) * Double(i + 1)
        }
        return (total, changed)
    }

    /// Standardised residual of one observation at `x`, and the distance.
    @inline(__always)
    func residual(_ o: Observation, at x: Point3) -> (e: Double, d: Double) {
        let d = max(distance(x, o.position), PathLoss.minimumDistance)
        let expected = o.txRef - slope * Elementary.log(d) - o.walls
        return ((o.rssi - expected) / (sigma * o.spread), d)
    }

    /// A node heard once or twice counts less than one heard throughout the window.
    @inline(__always)
    func weight(_ o: Observation) -> Double { Self.weight(samples: o.samples) }

    static func weight(samples: Int) -> Double {
        Double(min(samples, Observation.fullWeightSamples)) / Double(Observation.fullWeightSamples)
    }

    @inline(__always)
    func huberWeight(_ e: Double) -> Double { abs(e) <= huber ? 1 : huber / abs(e) }

    /// The robust cost at one point, and the normal equations there.
    typealias Evaluation = (cost: Double, normal: Symmetric3, gradient: (Double, Double, Double))

    /// The robust cost at `x` and the Gauss–Newton normal equations `A = Σ w J Jᵀ`,
    /// `g = Σ w e J` with IRLS Huber weights.
    func evaluate(_ obs: [Observation], at x: Point3) -> Evaluation {
        var cost = 0.0
        var a = Symmetric3()
        var g = (0.0, 0.0, 0.0)
        for o in obs {
            let (e, d) = residual(o, at: x)
            let magnitude = abs(e), wo = weight(o)
            cost += wo * (magnitude <= huber ? 0.5 * e * e : huber * (magnitude - 0.5 * huber))
            let k = slope / (sigma * o.spread * d * d)
            let j = (k * (x.x - o.position.x), k * (x.y - o.position.y), k * (x.z - o.position.z))
            let w = wo * huberWeight(e)
            a.addOuter(j, weight: w)
            g.0 += w * e * j.0; g.1 += w * e * j.1; g.2 += w * e * j.2
        }
        if let height {
            // A pseudo-observation of height: residual (z - h)/s, Jacobian (0, 0, 1/s).
            let r = (x.z - height) / heightSpread
            cost += 0.5 * r * r
            a.zz += 1 / (heightSpread * heightSpread)
            g.2 += r / heightSpread
        }
        return (cost, a, g)
    }

    /// The fix at the solution `x`, evaluated there (`at`): covariance from the normal equations
    /// scaled by the fit.
    func fix(_ obs: [Observation], at x: Point3, _ evaluation: Evaluation) -> Fix {
        let cost = evaluation.cost
        var ridge = evaluation.normal
        let r = Self.covarianceRidge, unknown = Self.unknownVariance
        ridge.xx += r; ridge.yy += r; ridge.zz += r
        let c = ridge.inverse ?? Symmetric3(xx: unknown, yy: unknown, zz: unknown)
        let dof = Double(max(obs.count - 3, 1))
        let fitScale = max(1, 2 * cost / dof)
        let xx = min(c.xx * fitScale, Self.greatestVariance), yy = min(c.yy * fitScale, Self.greatestVariance)
        // The covariance shrinks with the variances it caps, so the matrix stays positive definite.
        // (Exactly c.xy · fitScale when neither is capped.)
        let sx = c.xx > 0 ? xx / (c.xx * fitScale) : 1, sy = c.yy > 0 ? yy / (c.yy * fitScale) : 1
        let xy = c.xy * fitScale * (sx * sy).squareRoot()
        let spread = (xx + yy).squareRoot()
        let nodes = Double(obs.count)
        let confidence = (1 / (1 + spread * spread / Self.halfConfidenceSpread2)) * min(1, nodes / Self.fullConfidenceNodes)
        return Fix(position: x, floor: floor, xx: xx, xy: xy, yy: yy,
                   zz: min(c.zz * fitScale, Self.unknownVariance), confidence: confidence, fixes: obs.count,
                   cost: cost / nodes)
    }
}

@inline(__always)
func distance(_ a: Point3, _ b: Point3) -> Double {
    let dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z
    return (dx * dx + dy * dy + dz * dz).squareRoot()
}

import Wire
import SiteModel

extension WalkOracleSearch {
    /// The cost at `p`, on the exact model (not the grid's table).
    func cost(_ terms: Terms, at p: Point2) -> Double {
        terms.cost { exactBasis(p, $0) }
    }

    /// `-10·log10 d` from `p` at the search's height to receiver `j`.
    private func exactBasis(_ p: Point2, _ j: Int) -> Double {
        let node = oracle.nodes[j].point
        let dx = p.x - node.x, dy = p.y - node.y, dz = z - node.z
        return logDistanceBasis(squared: dx * dx + dy * dy + dz * dz)
    }

    /// A compass search from `start` (a grid point) down to 1 mm, starting at a quarter of the
    /// grid's step and kept inside the floor's bounds: it needs no gradient, so an edge that
    /// bounds the slope cannot stop it short of the least cost nearby.
    func refine(_ terms: Terms, from start: Point2) -> (Point2, Double) {
        let grid = oracle.grid
        return BoundedSearch.compass(from: start, cost: cost(terms, at: start), stride: max(grid.spacing.x, grid.spacing.y) / 4,
                                     stop: 0.001, bounds: grid.bounds) { cost(terms, at: $0) }
    }
}

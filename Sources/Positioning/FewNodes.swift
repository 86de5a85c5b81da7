import Wire
import SiteModel

/// Fallbacks when too few nodes hear a device to fix a position, and start points.
enum FewNodes {
    /// The most confidence a fix from one node may have (its direction is a guess), and from
    /// two (only across their line is it unknown); both fall with the implied distance beyond 1 m.
    static let oneNodeConfidence = 0.25, twoNodeConfidence = 0.4
    /// Shorter than this (m), a direction is no direction.
    static let noLength = 1e-6
    /// The least spread along two nodes' line (m), a quarter of the shorter distance above it;
    /// the least across it, the shorter distance above it.
    static let leastAlong = 0.5, leastAcross = 1.0
    /// The start point's nodes: the strongest three, each weighed by exp(level / this many dB).
    static let centroidNodes = 3
    static let centroidScale = 10.0
    /// One node: the implied distance from the node, toward the last known position
    /// (straight below the node when there is none). Low confidence: direction is a guess.
    static func one(_ o: Observation, floor: Int, site: SiteGeometry, model: PathLoss, hint: Point3?) -> Fix {
        let d = model.distance(rssi: o.rssi, txRef: o.txRef)
        var p = o.position
        if let hint {
            let dx = hint.x - o.position.x, dy = hint.y - o.position.y
            let len = (dx * dx + dy * dy).squareRoot()
            if len > Self.noLength {
                let reach = min(d, len)
                p = Point3(o.position.x + dx / len * reach, o.position.y + dy / len * reach, hint.z)
            }
        }
        p = site.clamp(p, floor: floor)
        let variance = max(d * d, 1)
        return Fix(position: p, floor: floor, xx: variance, xy: 0, yy: variance, zz: 1,
                   confidence: min(Self.oneNodeConfidence, Self.oneNodeConfidence / max(d, 1)), fixes: 1, cost: 0)
    }

    /// Two nodes: on the line between them, split by the implied distances. Uncertain
    /// across the line, so the covariance is stretched that way.
    static func two(_ a: Observation, _ b: Observation, floor: Int, site: SiteGeometry, model: PathLoss) -> Fix {
        let da = model.distance(rssi: a.rssi, txRef: a.txRef)
        let db = model.distance(rssi: b.rssi, txRef: b.txRef)
        let t = da / (da + db)
        let p = site.clamp(Point3(a.position.x + (b.position.x - a.position.x) * t,
                                  a.position.y + (b.position.y - a.position.y) * t,
                                  a.position.z + (b.position.z - a.position.z) * t), floor: floor)
        let ux = b.position.x - a.position.x, uy = b.position.y - a.position.y
        let len = max((ux * ux + uy * uy).squareRoot(), Self.noLength)
        let (cx, cy) = (ux / len, uy / len)
        // Along the line: a quarter of the shorter distance; across it: the shorter distance.
        let along = max(min(da, db) / 2, Self.leastAlong), across = max(min(da, db), Self.leastAcross)
        let va = along * along, vc = across * across
        return Fix(position: p, floor: floor,
                   xx: va * cx * cx + vc * cy * cy, xy: (va - vc) * cx * cy, yy: va * cy * cy + vc * cx * cx,
                   zz: 1, confidence: min(Self.twoNodeConfidence, Self.twoNodeConfidence / max(min(da, db), 1)), fixes: 2, cost: 0)
    }

    /// The RSSI-weighted centroid of the three strongest observations: a start point that is
    /// inside the right neighbourhood without knowing the model's calibration.
    static func centroidOfStrongest(_ obs: [Observation]) -> Point3 {
        var best: [(Double, Point3)] = []
        best.reserveCapacity(Self.centroidNodes)
        for o in obs {
            let score = o.rssi - o.txRef
            if best.count < Self.centroidNodes { best.append((score, o.position)); continue }
            if let weakest = best.indices.min(by: { best[$0].0 < best[$1].0 }), best[weakest].0 < score {
                best[weakest] = (score, o.position)
            }
        }
        let top = best.map(\.0).max() ?? 0
        var sx = 0.0, sy = 0.0, sz = 0.0, sw = 0.0
        for (score, p) in best {
            let w = Elementary.exp((score - top) / Self.centroidScale)
            sx += w * p.x; sy += w * p.y; sz += w * p.z; sw += w
        }
        return sw > 0 ? Point3(sx / sw, sy / sw, sz / sw) : Point3(0, 0, 0)
    }
}

import Wire
import SiteModel

extension RadioMap {
    /// Beyond this many bandwidths a point's kernel weight is taken as 0 (e^-12.5 < 4e-6).
    public static let reach = 5.0

    /// The correction (dB) of `layer` at `(x, y)`: the points' weighted mean residual shrunk
    /// toward 0 by `prior`, within ±`limit`. `except` leaves one point out, to score the map
    /// on a point it did not see.
    public func correction(_ layer: Layer, x: Double, y: Double, except: Int? = nil) -> Double {
        let h2 = 2 * bandwidth * bandwidth, far = Self.reach * Self.reach * bandwidth * bandwidth
        var sum = 0.0, weight = prior
        for (i, p) in layer.points.enumerated() where i != except {
            let dx = p.x - x, dy = p.y - y, d2 = dx * dx + dy * dy
            guard d2 < far else { continue }
            let w = p.weight * Elementary.exp(-d2 / h2)
            sum += w * p.residual
            weight += w
        }
        guard weight > 0 else { return 0 }
        return min(max(sum / weight, -limit), limit)
    }
}

/// A site's radio map tabulated for the engine: per node and floor a grid of corrections,
/// computed once when the engine starts, read bilinearly per evaluation (no allocation, a few
/// multiplications: the solver asks once per observation and wall pass, the global search once
/// per node and grid cell when its table is built).
struct RadioMapGrid: Sendable {
    /// The grid's spacing at most (m): the kernel is a metre or more wide, so this resolves it.
    static let spacing = 0.5
    /// Grid points per layer at most; the spacing grows on big floors to stay within this.
    static let maximumPoints = 20_000

    struct Table: Sendable {
        var origin: Point2
        var cell: Double
        var columns: Int, rows: Int
        var values: [Float]
    }

    /// `node * floorCount + floor` → index in `tables`, -1 when the map has no layer there.
    private var layerOf: [Int32] = []
    private var tables: [Table] = []
    private var floorCount = 0

    /// Whether any node has a correction anywhere.
    var isEmpty: Bool { tables.isEmpty }

    init() {}

    init(_ map: RadioMap, site: Site) {
        floorCount = site.floors.count
        layerOf = [Int32](repeating: -1, count: site.nodes.count * floorCount)
        for layer in map.layers where !layer.points.isEmpty {
            guard let n = site.nodes.firstIndex(where: { $0.name == layer.node }),
                  let f = site.floors.firstIndex(where: { $0.id == layer.floor }) else { continue }
            layerOf[n * floorCount + f] = Int32(tables.count)
            tables.append(Self.table(map, layer, bounds: site.floors[f].bounds))
        }
    }

    private static func table(_ map: RadioMap, _ layer: RadioMap.Layer, bounds: (min: Point3, max: Point3)) -> Table {
        let width = max(bounds.max.x - bounds.min.x, 0.1), depth = max(bounds.max.y - bounds.min.y, 0.1)
        let cell = max(spacing, (width * depth / Double(maximumPoints)).squareRoot())
        let columns = clampedIndex((width / cell).rounded(.up), 1, maximumPoints) + 1
        let rows = clampedIndex((depth / cell).rounded(.up), 1, maximumPoints) + 1
        var values = [Float](repeating: 0, count: columns * rows)
        for r in 0..<rows {
            for c in 0..<columns {
                let x = bounds.min.x + Double(c) * cell, y = bounds.min.y + Double(r) * cell
                values[r * columns + c] = Float(map.correction(layer, x: x, y: y))
            }
        }
        return Table(origin: bounds.min.xy, cell: cell, columns: columns, rows: rows, values: values)
    }

    /// The correction (dB, added to the RSSI the model expects) of `node` heard from `p` on
    /// `floor`; 0 where the map has none. Outside the floor's box, the box's edge value.
    @inline(__always)
    func correction(node: Int, floor: Int, at p: Point2) -> Double {
        let i = node * floorCount + floor
        guard floor >= 0, floor < floorCount, i >= 0, i < layerOf.count else { return 0 }
        let t = Int(layerOf[i])
        guard t >= 0 else { return 0 }
        return tables[t].value(at: p)
    }
}

extension RadioMapGrid.Table {
    /// Bilinear between the four grid points around `p`, clamped into the grid.
    @inline(__always)
    func value(at p: Point2) -> Double {
        let u = Swift.min(Swift.max((p.x - origin.x) / cell, 0), Double(columns - 1))
        let v = Swift.min(Swift.max((p.y - origin.y) / cell, 0), Double(rows - 1))
        // A coordinate that is not a number compares false above: it reaches here as NaN.
        guard u.isFinite, v.isFinite else { return 0 }
        let c = Swift.min(Int(u), columns - 2 < 0 ? 0 : columns - 2), r = Swift.min(Int(v), rows - 2 < 0 ? 0 : rows - 2)
        let fu = u - Double(c), fv = v - Double(r)
        let c1 = Swift.min(c + 1, columns - 1), r1 = Swift.min(r + 1, rows - 1)
        let a = Double(values[r * columns + c]), b = Double(values[r * columns + c1])
        let d = Double(values[r1 * columns + c]), e = Double(values[r1 * columns + c1])
        return (a * (1 - fu) + b * fu) * (1 - fv) + (d * (1 - fu) + e * fu) * fv
    }
}

import Wire
import SiteModel

extension SiteGeometry {
    /// A floor's rooms in a uniform grid of cells about one room in size, each cell listing the
    /// rooms whose bounding box touches it: what lies near a point is found without going
    /// through every room of the floor (a hospital floor has hundreds).
    struct RoomGrid: Sendable {
        var origin = Point2(0, 0)
        var cell = 1.0
        var columns = 0, rows = 0
        /// The rooms of cell `i` (row-major) are `entries[starts[i]..<starts[i + 1]]`.
        var starts: [Int32] = [0]
        var entries: [Entry] = []
        /// Rooms visited at every look-up: those whose box is not finite (no points, or a point
        /// that is not a number), as measuring every room visited them, and those whose box
        /// covers more than `spreadCells` cells, so that a plan of many overlapping large rooms
        /// cannot make the grid's lists grow as the square of the rooms.
        var everywhere: [Int] = []
        static let spreadCells = 64

        /// A room in a cell, with the first cell of its box (a room over several cells is
        /// visited once, in the first of them a look-up covers).
        struct Entry: Sendable {
            var room: Int32
            var column: Int16
            var row: Int16
        }
    }

    static func grid(of floorRooms: [Int], _ rooms: [Area]) -> RoomGrid {
        var grid = RoomGrid()
        let finite = { (r: Int) in [rooms[r].low.x, rooms[r].low.y, rooms[r].high.x, rooms[r].high.y].allSatisfy(\.isFinite) }
        let placed = floorRooms.filter(finite)
        grid.everywhere = floorRooms.filter { !finite($0) }
        guard !placed.isEmpty else { return grid }
        let low = Point2(placed.lazy.map { rooms[$0].low.x }.min() ?? 0, placed.lazy.map { rooms[$0].low.y }.min() ?? 0)
        let high = Point2(placed.lazy.map { rooms[$0].high.x }.max() ?? 0, placed.lazy.map { rooms[$0].high.y }.max() ?? 0)
        let width = high.x - low.x, depth = high.y - low.y
        // About one cell per room, at most 1,024 a side; one cell for a plan whose extent
        // overflows a Double (every room then in it).
        let cell = Swift.max((width * depth / Double(placed.count)).squareRoot(), Swift.max(width, depth) / 1_024, 1e-3)
        let fits = cell.isFinite && width.isFinite && depth.isFinite
        grid.origin = low
        grid.cell = fits ? cell : 1
        grid.columns = fits ? Swift.min(Int(width / cell) + 1, 1_024) : 1
        grid.rows = fits ? Swift.min(Int(depth / cell) + 1, 1_024) : 1
        var cells = [[RoomGrid.Entry]](repeating: [], count: grid.columns * grid.rows)
        for r in placed {
            let (x0, x1) = grid.span(rooms[r].low.x, rooms[r].high.x, axis: 0)
            let (y0, y1) = grid.span(rooms[r].low.y, rooms[r].high.y, axis: 1)
            guard (x1 - x0 + 1) * (y1 - y0 + 1) <= RoomGrid.spreadCells else { grid.everywhere.append(r); continue }
            let entry = RoomGrid.Entry(room: Int32(r), column: Int16(x0), row: Int16(y0))
            for y in y0...y1 { for x in x0...x1 { cells[y * grid.columns + x].append(entry) } }
        }
        for c in cells {
            grid.entries += c
            grid.starts.append(Int32(grid.entries.count))
        }
        return grid
    }
}

extension SiteGeometry.RoomGrid {
    /// `SiteGeometry.forEachRoom` on this floor, whose rooms are `every`.
    func forEachRoom(near p: Point2, within distance: Double, every: [Int], _ body: (Int) -> Void) {
        for r in everywhere { body(r) }
        guard columns > 0, !(distance < 0) else { return }
        // Not finite (a point, a distance): no cell range to take, so every room.
        guard p.x.isFinite, p.y.isFinite, distance.isFinite else {
            for r in every where !everywhere.contains(r) { body(r) }
            return
        }
        // A millimetre more than asked: rounding can never leave out a room the caller's test keeps.
        let reach = distance + 1e-3
        let (x0, x1) = span(p.x - reach, p.x + reach, axis: 0)
        let (y0, y1) = span(p.y - reach, p.y + reach, axis: 1)
        for y in y0...y1 {
            for x in x0...x1 {
                let cell = y * columns + x
                for i in Int(starts[cell])..<Int(starts[cell + 1]) {
                    let e = entries[i]
                    // A room over several cells is visited in the first of them the range holds.
                    guard x == Swift.max(Int(e.column), x0), y == Swift.max(Int(e.row), y0) else { continue }
                    body(Int(e.room))
                }
            }
        }
    }

    /// The cells (first, last) that `low...high` covers along an axis (0: x, 1: y), clamped to
    /// the grid; both ends finite. A plan whose extent overflows a Double (coordinates near
    /// 1e308) makes some quotients not numbers: the whole axis then, never a trap.
    @inline(__always)
    func span(_ low: Double, _ high: Double, axis: Int) -> (Int, Int) {
        let start = axis == 0 ? origin.x : origin.y
        let last = Double((axis == 0 ? columns : rows) - 1)
        let a = ((low - start) / cell).rounded(.down), b = ((high - start) / cell).rounded(.down)
        guard !a.isNaN, !b.isNaN else { return (0, Int(last)) }
        return (Int(Swift.min(Swift.max(a, 0), last)), Int(Swift.min(Swift.max(b, 0), last)))
    }
}

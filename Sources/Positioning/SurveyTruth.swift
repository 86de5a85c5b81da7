import Wire
import SiteModel

/// A bad line of a survey's truth or rooms file: its 1-based line number and what is wrong.
public struct SurveyInputError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public init(line: Int, _ message: String) { self.line = line; self.message = message }
    public var description: String { "line \(line): \(message)" }
}

/// Where a surveyed device really was: TRUTH.csv, header `t,x,y[,z][,floor]` (Unix seconds,
/// metres, the site's floor ids), rows in time order.
///
/// Between two consecutive rows the position is interpolated (linearly) when they are at most
/// `maxGap` seconds apart, or held when both name the same point (a stay, however long); at
/// other times there is no truth, and a reading then is not used. A missing `z` is the carried
/// height above the floor's lower bound; a missing `floor` is the only floor, or the first
/// floor whose bounds hold the point.
public struct TruthTrack: Sendable {
    public struct Row: Sendable, Equatable {
        public var t: Double
        public var position: Point3
        /// Index in the site's floors.
        public var floor: Int
    }

    public private(set) var rows: [Row]
    public let maxGap: Double
    /// A missing `z` is this far above the floor's lower bound (m): a tag carried in the hand.
    public static let carriedHeight = 1.0

    /// Parses TRUTH.csv against `site` (its floors and their bounds). Throws on the first bad line.
    public init(csv text: String, site: Site, maxGap: Double = 2) throws(SurveyInputError) {
        self.maxGap = maxGap
        rows = []
        var columns: TruthColumns?
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.surveyTrimmed
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let header = columns else { columns = try TruthColumns(header: line, line: i + 1); continue }
            let row = try header.row(line, line: i + 1, site: site)
            if let last = rows.last, row.t < last.t {
                throw SurveyInputError(line: i + 1, "time \(row.t) goes back (the row before is at \(last.t)): rows must be in time order")
            }
            rows.append(row)
        }
        guard columns != nil else { throw SurveyInputError(line: 1, "empty file: expected the header t,x,y[,z][,floor]") }
        guard !rows.isEmpty else { throw SurveyInputError(line: 2, "no rows after the header") }
    }

    /// The true position and floor at `t`; `nil` outside every span (see the type's comment).
    public func position(at t: Double) -> (point: Point3, floor: Int)? {
        guard let first = rows.first, let last = rows.last, t >= first.t, t <= last.t else { return nil }
        // The last row at or before `t`.
        var lo = 0, hi = rows.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rows[mid].t <= t { lo = mid + 1 } else { hi = mid }
        }
        let a = rows[lo - 1]
        guard lo < rows.count else { return (a.position, a.floor) }
        let b = rows[lo]
        if a.position == b.position && a.floor == b.floor { return (a.position, a.floor) }
        guard b.t - a.t <= maxGap, a.floor == b.floor else { return t == a.t ? (a.position, a.floor) : nil }
        let u = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
        let p = Point3(a.position.x + (b.position.x - a.position.x) * u, a.position.y + (b.position.y - a.position.y) * u,
                       a.position.z + (b.position.z - a.position.z) * u)
        return (p, a.floor)
    }
}

/// Which column of TRUTH.csv holds what.
private struct TruthColumns {
    var t = -1, x = -1, y = -1, z = -1, floor = -1, count = 0

    init(header: Substring, line: Int) throws(SurveyInputError) {
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map { String($0.surveyTrimmed) }
        count = names.count
        for (i, name) in names.enumerated() {
            switch name {
            case "t": t = i
            case "x": x = i
            case "y": y = i
            case "z": z = i
            case "floor": floor = i
            default: throw SurveyInputError(line: line, "unknown column '\(name)': the header is t,x,y[,z][,floor]")
            }
        }
        guard t >= 0, x >= 0, y >= 0 else { throw SurveyInputError(line: line, "the header needs t, x and y: t,x,y[,z][,floor]") }
    }

    func row(_ text: Substring, line: Int, site: Site) throws(SurveyInputError) -> TruthTrack.Row {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.surveyTrimmed }
        guard fields.count == count else { throw SurveyInputError(line: line, "expected \(count) fields, got \(fields.count)") }
        func number(_ column: Int, _ name: String) throws(SurveyInputError) -> Double {
            guard let v = Double(fields[column]), v.isFinite else {
                throw SurveyInputError(line: line, "\(name) '\(fields[column])' is not a number")
            }
            return v
        }
        let t = try number(t, "t"), x = try number(x, "x"), y = try number(y, "y")
        let given = z >= 0 ? try number(z, "z") : nil
        let f = try floorIndex(floor >= 0 ? String(fields[floor]) : nil, x: x, y: y, line: line, site: site)
        let bounds = site.floors[f].bounds
        guard x >= bounds.min.x - 1e-6, x <= bounds.max.x + 1e-6, y >= bounds.min.y - 1e-6, y <= bounds.max.y + 1e-6 else {
            throw SurveyInputError(line: line, "point (\(x), \(y)) is outside floor \(site.floors[f].id)'s bounds "
                + "(\(bounds.min.x)...\(bounds.max.x), \(bounds.min.y)...\(bounds.max.y))")
        }
        return TruthTrack.Row(t: t, position: Point3(x, y, given ?? bounds.min.z + TruthTrack.carriedHeight), floor: f)
    }

    private func floorIndex(_ id: String?, x: Double, y: Double, line: Int, site: Site) throws(SurveyInputError) -> Int {
        if let id {
            guard let f = site.floors.firstIndex(where: { $0.id == id }) else {
                throw SurveyInputError(line: line, "unknown floor '\(id)': the site's floors are \(site.floors.map(\.id).joined(separator: ", "))")
            }
            return f
        }
        guard !site.floors.isEmpty else { throw SurveyInputError(line: line, "the site has no floor") }
        let holding = site.floors.firstIndex { f in
            f.bounds.min.x <= x && x <= f.bounds.max.x && f.bounds.min.y <= y && y <= f.bounds.max.y
        }
        return holding ?? 0
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns.
    var surveyTrimmed: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\r" || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\r" || l == "\t" { s = s.dropLast() }
        return s
    }
}

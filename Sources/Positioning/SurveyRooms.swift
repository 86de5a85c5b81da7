import Wire
import SiteModel

/// Which room a surveyed device was in, and when: ROOMS.csv, header `t_start,t_end,room`
/// (Unix seconds, a room id of the site), spans in time order and not overlapping.
public struct RoomLabels: Sendable {
    public struct Span: Sendable, Equatable {
        public var start: Double, end: Double
        public var room: String
    }

    public private(set) var spans: [Span] = []

    /// Parses ROOMS.csv against `site`'s room ids. Throws on the first bad line.
    public init(csv text: String, site: Site) throws(SurveyInputError) {
        let rooms = Set(site.floors.flatMap { $0.rooms.map(\.id) })
        var header = false
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.surveyTrimmed
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.surveyTrimmed }
            guard header else {
                guard fields == ["t_start", "t_end", "room"] else { throw SurveyInputError(line: i + 1, "expected the header t_start,t_end,room") }
                header = true
                continue
            }
            spans.append(try Self.span(fields, line: i + 1, rooms: rooms, after: spans.last))
        }
        guard header else { throw SurveyInputError(line: 1, "empty file: expected the header t_start,t_end,room") }
    }

    private static func span(_ fields: [Substring], line: Int, rooms: Set<String>, after previous: Span?) throws(SurveyInputError) -> Span {
        guard fields.count == 3 else { throw SurveyInputError(line: line, "expected 3 fields t_start,t_end,room, got \(fields.count)") }
        guard let start = Double(fields[0]), start.isFinite else { throw SurveyInputError(line: line, "t_start '\(fields[0])' is not a number") }
        guard let end = Double(fields[1]), end.isFinite else { throw SurveyInputError(line: line, "t_end '\(fields[1])' is not a number") }
        guard end >= start else { throw SurveyInputError(line: line, "t_end \(end) is before t_start \(start)") }
        if let previous, start < previous.end {
            throw SurveyInputError(line: line, "t_start \(start) goes back into the span before (which ends at \(previous.end))")
        }
        let room = String(fields[2])
        guard rooms.contains(room) else {
            throw SurveyInputError(line: line, "unknown room '\(room)': the site's rooms are \(rooms.sorted().joined(separator: ", "))")
        }
        return Span(start: start, end: end, room: room)
    }

    /// The room at `t`; `nil` outside every span.
    public func room(at t: Double) -> String? {
        var lo = 0, hi = spans.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if spans[mid].start <= t { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, t <= spans[lo - 1].end else { return nil }
        return spans[lo - 1].room
    }
}

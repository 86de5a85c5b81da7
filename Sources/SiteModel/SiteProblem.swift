/// One problem found in a site file: where it is, which key, and what is wrong.
public struct SiteProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: Sendable, Equatable {
        /// The site cannot be used as written; the aggregator refuses to start.
        case error
        /// The site works, but something is ignored or the geometry is weak.
        case warning
    }

    public var severity: Severity
    /// 1-based line in the file; 0 when the problem is about the file as a whole.
    public var line: Int
    /// The key path, as `floors[0].rooms[2].points`; empty for the file as a whole.
    public var key: String
    public var message: String

    public init(_ severity: Severity, line: Int, key: String, message: String) {
        self.severity = severity; self.line = line; self.key = key; self.message = message
    }

    /// `LINE: key: message`, with `warning:` before a warning's message.
    public var description: String {
        let text = severity == .warning ? "warning: " + message : message
        return "\(line): " + (key.isEmpty ? text : "\(key): \(text)")
    }
}

/// Where the named things of a site were written, so later checks can point at them.
public struct SiteLocations: Sendable, Equatable {
    public var floors: [String: SourceLocation] = [:]
    public var rooms: [String: SourceLocation] = [:]
    public var zones: [String: SourceLocation] = [:]
    public var nodes: [String: SourceLocation] = [:]
    /// The `mqtt` section and its `tls` entry, keyed `mqtt` and `mqtt.tls`, so a check of the
    /// broker settings made from them can point at the line.
    public var settings: [String: SourceLocation] = [:]
    public init() {}
}

/// A line and the key path written there.
public struct SourceLocation: Sendable, Equatable {
    public var line: Int
    public var key: String
    public init(line: Int, key: String) { self.line = line; self.key = key }
}

/// A decoded site with every problem found on the way.
///
/// Bad entries are left out of `site` (and reported), so one mistake does not hide the next.
public struct SiteDecoding: Sendable {
    public var site: Site
    /// In file order within each pass: shape and values first, then cross-references.
    public var problems: [SiteProblem]
    public var locations: SiteLocations

    public init(site: Site, problems: [SiteProblem], locations: SiteLocations) {
        self.site = site; self.problems = problems; self.locations = locations
    }

    public var errors: [SiteProblem] { problems.filter { $0.severity == .error } }
    public var warnings: [SiteProblem] { problems.filter { $0.severity == .warning } }
}

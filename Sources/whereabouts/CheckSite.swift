import MQTT
import Options
import Wire
import SiteModel
import YAML

let checkSiteCommand = Command(
    name: "whereabouts check-site",
    abstract: "check a site file and report every problem",
    options: [],
    positionals: "FILE",
    discussion: """
        Prints every problem as FILE:LINE: key: message, errors first, then warnings, then a summary.
        Exits 1 when there is any error (the aggregator would refuse the file), 0 otherwise.

        A site without a floor plan (floors without bounds, rooms without points, nodes with a room:
        instead of a point) gets a last line saying what it can and cannot do: rooms, events and
        occupancy from what each room's node hears and from taught fingerprints; no positions, no
        map coordinates, no zones.

        Warnings point at weak geometry: rooms with no node inside, rooms heard by fewer than three
        nodes, nodes nearly on one line, overlapping rooms (rooms must partition a floor).
        The rules behind them:
          - a node hears a room when the straight line from the node to a point well inside the room,
            \(CoverageRule.deviceHeight) m above the floor, is at most \(CoverageRule.range) m long and crosses at most
            \(CoverageRule.maxWalls) wall segments; a room should be heard by \(CoverageRule.minimumNodes) nodes;
          - a floor's nodes are nearly collinear when they fit in a band narrower than
            \(CoverageRule.collinearSpread) m, or than a tenth of the band's length;
          - rooms overlap when more than 0.05 m² lies inside both.
        """)

func runCheckSite(_ arguments: [String]) -> Int32 {
    runTool(checkSiteCommand, arguments: arguments) { args in
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError(args.positionals.isEmpty ? "a site FILE is required" : "one site FILE at a time")
        }
        var decoded = Site.load(path: path)
        if let problem = brokerProblem(decoded) { decoded.problems.append(problem) }
        let warnings = (decoded.warnings + decoded.site.geometryWarnings(locations: decoded.locations))
            .enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        for problem in decoded.errors + warnings { print("\(path):\(problem)") }
        let site = decoded.site
        let rooms = site.floors.reduce(0) { $0 + $1.rooms.count }
        print("\(path): \(site.floors.count) floor(s), \(rooms) room(s), \(site.nodes.count) node(s), \(site.zones.count) zone(s), "
              + "\(site.devices.count) device(s); \(decoded.errors.count) error(s), \(warnings.count) warning(s)")
        if !site.hasFloorPlan && decoded.errors.isEmpty { print("\(path): " + withoutPlanSummary(site)) }
        return decoded.errors.isEmpty ? ExitCode.success : ExitCode.failure
    }
}

/// The site's `mqtt` section checked as the aggregator checks it (the same
/// `BrokerSettings(site:broker:)`, without `--broker`): a file check-site passes, the
/// aggregator does not refuse for its broker settings.
func brokerProblem(_ decoded: SiteDecoding) -> SiteProblem? {
    do { _ = try BrokerSettings(site: decoded.site.mqtt, broker: nil); return nil } catch { return error.problem(at: decoded.locations) }
}

/// What a site without a floor plan can and cannot do, in one line.
func withoutPlanSummary(_ site: Site) -> String {
    let rooms = site.floors.flatMap(\.rooms).map(\.id)
    let placed = Set(site.nodes.compactMap(\.room))
    let bare = rooms.filter { !placed.contains($0) }
    var text = "no floor plan: rooms (\(rooms.count), \(rooms.count - bare.count) with a node in them) are decided from what each room's node hears"
    text += " and from fingerprints taught with `whereabouts calibrate --rooms`; state carries no x, y, z, the map no positions, and zones need a plan"
    if !bare.isEmpty { text += "; without fingerprints \(bare.joined(separator: ", ")) cannot be told" }
    return text
}

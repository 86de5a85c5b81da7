// libFuzzer target "site": a site file's bytes through libyaml, the tree builder and the site
// decoder, as `whereabouts check-site` and the aggregator's start read it. Compiled into one
// module with the Wire and YAML sources (the YAML sources' `import Wire` names that module).
//
// Oracles: every problem has a line inside the text (or 0 for no line), and a site decoded
// without errors has the ids its cross-checks promise (rooms on known floors, unique nodes).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSite(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // libyaml also breaks lines at a lone CR (and at NEL, LS, PS): count every candidate.
    let lines = bytes.reduce(1) { $0 + ([0x0A, 0x0D, 0x85, 0xA8, 0xA9].contains($1) ? 1 : 0) }
    let root: ConfigNode
    do { root = try YAML.parse(bytes: bytes) } catch {
        oracle(error.line >= 0 && error.line <= lines + 1, "YAML error at line \(error.line) of \(lines)")
        return 0
    }
    let decoded = Site.decode(root)
    for problem in decoded.problems {
        oracle(problem.line >= 0 && problem.line <= lines + 1, "problem at line \(problem.line) of \(lines): \(problem)")
        _ = problem.description
    }
    guard decoded.errors.isEmpty else { return 0 }
    let site = decoded.site
    let floors = Set(site.floors.map(\.id))
    oracle(Set(site.nodes.map(\.name)).count == site.nodes.count, "duplicate node names accepted")
    for zone in site.zones { oracle(floors.contains(zone.floor), "zone \(zone.id) on unknown floor \(zone.floor)") }
    _ = site.geometryWarnings(locations: decoded.locations)
    return 0
}

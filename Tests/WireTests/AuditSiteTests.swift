import Testing
import Wire
import SiteModel
import YAML
#if canImport(Glibc)
import Glibc
#endif

// Audit, 2026-11-30: site files that decode without an error must not crash the code that
// reads them afterwards (`whereabouts check-site`'s geometry warnings).

/// Nodes far apart on one line, on a floor as large: finite numbers the decoder accepts
/// (a node outside its floor is only a warning), and a collinearity warning whose band length
/// (2e19 m) is beyond what an Int holds.
@Test func collinearNodesFarApartAreReportedNotTrapped() {
    let yaml = """
    floors:
      - id: f
        bounds: [[0, 0, 0], [3e19, 4, 3]]
    nodes:
      - { name: a, point: [0, 1, 1] }
      - { name: b, point: [1e19, 1, 1] }
      - { name: c, point: [2e19, 1, 1] }
    """
    let decoded = Site.load(yaml: yaml)
    #expect(decoded.errors.isEmpty, "\(decoded.errors)")
    let warnings = decoded.site.geometryWarnings(locations: decoded.locations)
    let collinear = warnings.first { $0.message.contains("nearly on one line") }
    #expect(collinear?.message.contains("2e+19 m along") == true, "\(warnings.map(\.message))")
}

/// The same with a non-finite length: coordinates of ±1e308 are finite, their spread is not.
@Test func collinearNodesAtTheEndsOfDoubleAreReportedNotTrapped() {
    let yaml = """
    floors:
      - id: f
        bounds: [[-1.7e308, 0, 0], [1.7e308, 4, 3]]
    nodes:
      - { name: a, point: [-1.7e308, 1, 1] }
      - { name: b, point: [0, 1, 1] }
      - { name: c, point: [1.7e308, 1, 1] }
    """
    let decoded = Site.load(yaml: yaml)
    #expect(decoded.errors.isEmpty, "\(decoded.errors)")
    _ = decoded.site.geometryWarnings(locations: decoded.locations)
}

/// A site, config or scenario path that names an endless file (`/dev/zero`, a pipe that never
/// closes, a log file given by mistake) was read whole into memory until the process died.
/// Run in a child with its address space capped 256 MiB above what it uses at the start.
@Test func anEndlessFileIsRefusedNotReadIntoMemory() async {
    await #expect(processExitsWith: .success) {
        var limit = rlimit()
        let statm = (try? YAML.readFile("/proc/self/statm")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let pages = Int(statm.split(separator: " ").first ?? "") ?? 0
        limit.rlim_cur = rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + 256 << 20)
        limit.rlim_max = limit.rlim_cur
        setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        do throws(YAMLError) {
            _ = try YAML.parse(contentsOf: "/dev/zero")
            exit(2)
        } catch {
            exit(error.message.contains("larger than") ? 0 : 3)
        }
    }
}

/// Rooms whose ids differ only outside [a-z0-9] share a Home Assistant discovery topic (the
/// later retained config replaced the earlier, without a word): now a warning names both.
@Test(arguments: [("front-door", "front_door", "front_door"), ("кухня", "спальня", "_"), ("Hall", "hall", "hall")])
func roomsSharingAHomeAssistantIdAreWarnedAbout(first: String, second: String, slug: String) {
    let yaml = """
    floors:
      - id: f
        bounds: [[0, 0, 0], [10, 4, 3]]
        rooms:
          - { id: "\(first)", points: [[0, 0], [5, 0], [5, 4], [0, 4]] }
    zones:
      - { id: "\(second)", floor: f, points: [[5, 0], [10, 0], [10, 4], [5, 4]] }
    """
    let decoded = Site.load(yaml: yaml)
    #expect(decoded.errors.isEmpty, "\(decoded.errors)")
    let warning = decoded.warnings.first { $0.message.contains("Home Assistant") }
    #expect(warning?.message.contains("'\(second)' and '\(first)' (line 5) are both '\(slug)'") == true, "\(decoded.warnings)")
    #expect(warning?.line == 7 && warning?.key == "zones[0].id", "\(String(describing: warning))")
}

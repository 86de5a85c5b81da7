import Testing
import Wire
import YAML

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

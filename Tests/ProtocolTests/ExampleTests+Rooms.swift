import Testing
import SiteModel
import YAML

/// The examples of a site without a floor plan and of the calibration file's fingerprints.
extension ProtocolExampleTests {
    /// Decodes without a problem into a site with no plan, and writes only documented keys
    /// (the Site file table's, and `nodes[].room` of its section's list).
    static func checkSiteWithoutPlan(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let decoded = Site.load(yaml: e.body)
        try require(decoded.problems.isEmpty, "problems: \(decoded.problems.map(\.description))")
        try require(!decoded.site.hasFloorPlan && decoded.site.nodes.allSatisfy { $0.room != nil }, "expects a site without a floor plan")
        let documented = Set(tableKeys(doc.section("Site file"))).union(["nodes[].room"])
        let written = keyPaths(try YAML.parse(e.body), "")
        try require(written.isSubset(of: documented), "in the example, not documented: \(written.subtracting(documented).sorted())")
        try require(doc.section("Site file").contains { $0.contains("`nodes[].room`") }, "nodes[].room is not described")
    }

    /// Decodes with `SiteCalibration` into fingerprints; its `fingerprints` keys are the table's.
    static func checkCalibrationFile(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let (calibration, problems) = SiteCalibration.decode(try YAML.parse(e.body))
        try require(problems.isEmpty, "problems: \(problems.map(\.description))")
        let prints = try calibration.fingerprints ?? { throw DocError("no fingerprints decoded") }()
        try require(!prints.rooms.isEmpty && prints.rooms.allSatisfy { !$0.nodes.isEmpty }, "expects rooms with nodes")
        let written = keyPaths(try YAML.parse(e.body), "").filter { $0.hasPrefix("fingerprints.rooms") || $0 == "fingerprints.window" }
        let documented = Set(tableKeys(doc.section("Calibration file")))
        try require(written == documented, "documented, not in the example: \(documented.subtracting(written).sorted()); "
                    + "in the example, not documented: \(written.subtracting(documented).sorted())")
    }
}

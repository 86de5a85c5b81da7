import Foundation
import Testing
import Wire
import SiteModel
import YAML

/// `whereabouts simulate` then `whereabouts calibrate`, as real processes, on the calibration
/// example (tools/calibration): what an operator pastes must load as a site and carry the fit.
private func whereabouts(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let p = Process()
    p.executableURL = executable("whereabouts")
    p.arguments = arguments
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try runUnmasked(p)
    let output = out.fileHandleForReading.readDataToEndOfFile(), errors = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
}

@Test(.timeLimit(.minutes(2)))
func calibrateFitsSimulatedBeaconsIntoAPastableSnippet() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calibrate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    defer { try? FileManager.default.removeItem(at: dir) }
    let site = packageRoot.appendingPathComponent("tools/calibration/site.yaml").path
    let scenario = packageRoot.appendingPathComponent("tools/calibration/scenario.yaml").path
    let simulated = try whereabouts(["simulate", "--site", site, "--scenario", scenario, "--out", dir.path])
    try #require(simulated.status == 0, "\(simulated.errors)")
    let readings = dir.appendingPathComponent("readings.jsonl").path

    let fit = try whereabouts(["calibrate", "--site", site, "--input", readings])
    #expect(fit.status == 0, "\(fit.errors)")
    // The site's floors with the snippet pasted in place of its nodes and positioning.
    let text = try String(contentsOfFile: site, encoding: .utf8)
    let floors = text.components(separatedBy: "\nnodes:")[0]
    let pasted = Site.load(yaml: floors + "\n" + fit.output)
    #expect(pasted.problems.isEmpty, "\(pasted.problems)\n\(fit.output)")
    // The unit test (SimulationTests) holds the tight bars; here: the fit, not the site's 2.7.
    #expect(abs(pasted.site.positioning.absorption - 3.3) < 0.4, "\(fit.output)")
    #expect(pasted.site.nodes.count == 10 && pasted.site.nodes.allSatisfy { $0.beacon != nil })
    let wDesk = pasted.site.nodes.first { $0.name == "w-desk" }?.rxAdj ?? 0
    #expect(abs(wDesk - -6.3) < 3, "\(fit.output)")   // its receiver is 6 dB loud (mean offset -0.3)

    // e-wall hearing only w-desk's beacon: one link would fit its rx_adj exactly, so it is
    // reported not calibrated, and the snippet keeps its rx_adj (with a comment) and still loads.
    var deafish = ""
    for line in try String(contentsOfFile: readings, encoding: .utf8).split(separator: "\n") {
        guard var batch = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
        if batch["node"] as? String == "e-wall", let items = batch["readings"] as? [[String: Any]] {
            batch["readings"] = items.filter { item in
                let id = item["id"] as? String ?? ""
                return !id.hasPrefix("iBeacon:e5ca1ade-") || id.hasSuffix("-1-1")
            }
        }
        deafish += String(decoding: try JSONSerialization.data(withJSONObject: batch), as: UTF8.self) + "\n"
    }
    let oneLink = dir.appendingPathComponent("one-link.jsonl")
    try deafish.write(to: oneLink, atomically: true, encoding: .utf8)
    let partial = try whereabouts(["calibrate", "--site", site, "--input", oneLink.path])
    #expect(partial.status == 0, "\(partial.errors)")
    #expect(partial.output.contains("# NOT CALIBRATED: e-wall heard fewer than 2 links"), "\(partial.output)")
    #expect(partial.output.contains("# e-wall    unfitted  +0.0      0 "), "\(partial.output)")
    #expect(partial.output.contains("rx_adj: 0.0, beacon: \"iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-10\" }   # not calibrated"),
            "\(partial.output)")
    #expect(Site.load(yaml: floors + "\n" + partial.output).problems.isEmpty, "\(partial.output)")

    var silent = text
    while let range = silent.range(of: #", beacon: "[^"]*""#, options: .regularExpression) { silent.removeSubrange(range) }
    let silentSite = dir.appendingPathComponent("silent.yaml")
    try silent.write(to: silentSite, atomically: true, encoding: .utf8)
    let none = try whereabouts(["calibrate", "--site", silentSite.path, "--input", readings])
    #expect(none.status == 1)
    #expect(none.errors.contains("no node beacons configured"), "\(none.errors)")
    #expect(none.output.isEmpty)

    #expect(try whereabouts(["calibrate", "--site", site]).status == 64)
    let help = try whereabouts(["calibrate", "--help"])
    #expect(help.status == 0 && help.output.contains("usage: whereabouts calibrate --site FILE --input READINGS.jsonl"))
}

/// A receivers' spread that is no spread is a usage error (exit 64, the rule in the message)
/// before any file is read; 0 is the plain fit, not an error.
@Test(.timeLimit(.minutes(1)), arguments: ["0.05", "1e-300", "-1", "41", "nan", "abc"])
func calibrateRefusesASpreadThatIsNoSpread(spread: String) throws {
    let site = packageRoot.appendingPathComponent("tools/calibration/site.yaml").path
    let refused = try whereabouts(["calibrate", "--site", site, "--input", "/nonexistent/readings.jsonl", "--receiver-spread", spread])
    #expect(refused.status == 64, "\(refused.errors)")
    #expect(refused.errors.contains("receiver-spread"), "\(refused.errors)")
}

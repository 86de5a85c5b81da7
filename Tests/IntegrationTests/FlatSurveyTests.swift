import Foundation
import Testing

/// The Kolakowski flat's robot survey split in time, as real processes: tools/kolakowski-convert.py,
/// `calibrate --survey` on the first half, `evaluate` on the second with and without the radio map.
@Test(.timeLimit(.minutes(5)))
func theFlatsSurveyFittedOnItsFirstHalfLocatesTheSecond() throws {
    let dir = try SurveyCommandTests.temporary("survey-flat")
    defer { try? FileManager.default.removeItem(at: dir) }
    let tool = packageRoot.appendingPathComponent("tools/kolakowski-convert.py").path
    let python = URL(fileURLWithPath: "/usr/bin/python3"), fixture = packageRoot.appendingPathComponent("Tests/Fixtures/kolakowski").path
    let site = dir.appendingPathComponent("flat.yaml").path
    for arguments in [["site", fixture, site], ["survey", fixture, dir.appendingPathComponent("first").path, "first"],
                      ["survey", fixture, dir.appendingPathComponent("second").path, "second"]] {
        let converted = try SurveyCommandTests.run(python, [tool] + arguments)
        try #require(converted.status == 0, "\(converted.errors)")
    }
    let cal = dir.appendingPathComponent("cal.yaml").path
    let fit = try SurveyCommandTests.whereabouts(["calibrate", "--site", site, "--survey", dir.appendingPathComponent("first/READINGS.jsonl").path,
                                                  "--truth", dir.appendingPathComponent("first/TRUTH.csv").path, "--out", cal])
    try #require(fit.status == 0, "\(fit.errors)")
    let written = try String(contentsOfFile: cal, encoding: .utf8)
    #expect(written.contains("radio_map:") && written.contains("rms_held_out:"), "\(written)")
    // The same calibration without its radio map: what the map adds.
    let plain = dir.appendingPathComponent("plain.yaml").path
    try String(written[..<written.range(of: "radio_map:")!.lowerBound]).write(toFile: plain, atomically: true, encoding: .utf8)
    let second = ["--input", dir.appendingPathComponent("second/READINGS.jsonl").path, "--truth", dir.appendingPathComponent("second/TRUTH.csv").path,
                  "--format", "json"]
    func median(_ extra: [String], _ locator: String = "default") throws -> Double {
        let out = try SurveyCommandTests.whereabouts(["evaluate", "--site", site] + extra + second)
        try #require(out.status == 0, "\(out.errors)")
        return try #require(try SurveyCommandTests.scores(out.output)[locator]?["median"] as? Double)
    }
    let none = try median([]), fitted = try median(["--calibration", plain]), mapped = try median(["--calibration", cal])
    let nearest = try median(["--calibration", cal], "nearest")
    // Measured: 3.42 m with the defaults, 1.32 m with the fit, 1.24 m with the fit and its map; nearest 2.70 m.
    // The map's gain here is within what the file's rounding moves (the Lab's unrounded fit: 1.23 m
    // without the map, 1.32 m with it): it must not cost more than that.
    #expect(fitted < none - 1.5, "defaults \(none) m, fitted \(fitted) m")
    #expect(mapped < fitted + 0.1, "fitted \(fitted) m, with the map \(mapped) m")
    #expect(mapped < 1.3 && mapped < nearest - 1, "with the map \(mapped) m, nearest \(nearest) m")
}

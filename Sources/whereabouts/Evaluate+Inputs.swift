import Foundation
import Options
import Positioning
import SiteModel
import Wire
import YAML

/// `--calibration CAL.yaml` of `locate` and `evaluate`.
let calibrationOption = Opt<String?>.text(
    "calibration", "CAL.yaml", help: "A calibration `whereabouts calibrate --survey` wrote: its absorption, rx_adj and tx_ref "
        + "replace the site's (default: the site's calibration key, if any).")

/// The site at `path` with `calibration` applied (else the file its `calibration` key names);
/// throws listing every problem of either file.
func loadCalibratedSite(path: String, calibration: String?) throws -> Site {
    let loaded = CalibratedSite.load(sitePath: path, calibration: calibration)
    let errors = loaded.errors
    guard errors.isEmpty else { throw ReadFailure(errors.map { "\($0.path):\($0.problem)" }.joined(separator: "\n")) }
    return loaded.site
}

/// Every reading of `input` with its node, in file order; `nil` (reported) when unreadable.
func readAllReadings(_ input: String, tool: String) -> (readings: [(node: String, reading: Reading)], badLines: Int)? {
    var readings: [(node: String, reading: Reading)] = []
    guard let bad = readBatches(input, tool: tool, { batch, node in
        for r in batch.readings { readings.append((node, r)) }
    }) else { return nil }
    return (readings, bad)
}

/// The text of a file the user named; a `ReadFailure` naming it otherwise.
func readText(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ReadFailure("cannot read \(path): \(String(cString: strerror(errno)))")
    }
    return String(decoding: data, as: UTF8.self)
}

/// TRUTH.csv, a parse error naming the file and line.
func readTruth(_ path: String, site: Site, maxGap: Double) throws -> TruthTrack {
    do { return try TruthTrack(csv: try readText(path), site: site, maxGap: maxGap) }
    catch let error as SurveyInputError { throw ReadFailure("\(path):\(error.line): \(error.message)") }
}

/// ROOMS.csv, a parse error naming the file and line.
func readRooms(_ path: String, site: Site) throws -> RoomLabels {
    do { return try RoomLabels(csv: try readText(path), site: site) }
    catch let error as SurveyInputError { throw ReadFailure("\(path):\(error.line): \(error.message)") }
}

/// `--max-gap S` of `calibrate` and `evaluate`.
let maxGapOption = Opt<Double>.number("max-gap", "S", help: "Truth rows at most this far apart (s) are interpolated between.",
                                      in: 0...3600, default: 2)

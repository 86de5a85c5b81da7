import Options
import Positioning
import Simulation
import SiteModel
import YAML

/// A site or scenario file with errors: each problem as `FILE:LINE: key: message`, one per
/// line (as the operator's `whereabouts` prints them).
struct FileProblemsError: Error, CustomStringConvertible {
    let path: String
    let problems: [SiteProblem]
    var description: String {
        "\(path) has \(problems.count) error(s):\n" + problems.map { "\(path):\($0)" }.joined(separator: "\n")
    }
}

/// Reads, parses and decodes a site file; throws `FileProblemsError` listing every error.
func loadSite(path: String) throws -> Site {
    let decoded = Site.load(path: path)
    guard decoded.errors.isEmpty else { throw FileProblemsError(path: path, problems: decoded.errors) }
    return decoded.site
}

/// Reads, parses and decodes a scenario file; throws only when it cannot be read or parsed.
func loadScenario(path: String) throws -> ScenarioDecoding {
    do {
        return Scenario.decode(try YAML.parse(contentsOf: path))
    } catch {
        throw FileProblemsError(path: path, problems: [SiteProblem(.error, line: error.line, key: "", message: error.message)])
    }
}

/// A receivers' spread option (dB): 0 for a plain fit, else 0.1 dB or more, as `whereabouts
/// calibrate --receiver-spread` takes it.
func receiverSpread(_ args: Arguments, _ name: String, upTo limit: Double) throws(UsageError) -> Double {
    guard let spread = try args.double(name, in: 0...limit) else { return NodeBeaconCalibration.receiverSpread }
    guard spread == 0 || spread >= 0.1 else {
        throw UsageError("--\(name) expects 0 (no prior) or a spread in 0.1...\(limit) dB, got \(spread)")
    }
    return spread
}

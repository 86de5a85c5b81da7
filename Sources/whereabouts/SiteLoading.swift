import Wire
import SiteModel
import YAML

/// A site or scenario file with errors: each problem as `FILE:LINE: key: message`, one per
/// line.
struct FileProblemsError: Error, CustomStringConvertible {
    let path: String
    let problems: [SiteProblem]
    var description: String {
        "\(path) has \(problems.count) error(s):\n" + problems.map { "\(path):\($0)" }.joined(separator: "\n")
    }
}

/// Reads, parses and decodes a site file; throws `FileProblemsError` listing every error.
/// Warnings do not stop a command; `whereabouts check-site` shows them.
func loadSite(path: String) throws -> Site {
    let decoded = Site.load(path: path)
    guard decoded.errors.isEmpty else { throw FileProblemsError(path: path, problems: decoded.errors) }
    return decoded.site
}

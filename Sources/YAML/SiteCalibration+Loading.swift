import Wire
public import SiteModel

extension SiteCalibration {
    /// Reads and decodes a calibration file. A file that cannot be read or parsed comes back
    /// empty with one error (line 0 for an unreadable file).
    public static func load(path: String) -> (calibration: SiteCalibration, problems: [SiteProblem]) {
        do {
            return decode(try YAML.parse(contentsOf: path))
        } catch {
            return (SiteCalibration(), [SiteProblem(.error, line: error.line, key: "", message: error.message)])
        }
    }

    /// Where a site file's `calibration: FILE` is: as written when absolute, else beside the site file.
    public static func path(_ written: String, besideSite sitePath: String) -> String {
        guard !written.hasPrefix("/"), let slash = sitePath.lastIndex(of: "/") else { return written }
        return String(sitePath[...slash]) + written
    }
}

/// A site with its calibration applied: which file was applied (`nil`: none) and the problems of
/// the site file and of the calibration file, each with its own path.
public struct CalibratedSite: Sendable {
    public var site: Site
    /// The site as its file has it, before the calibration was applied.
    public var uncalibrated: Site
    public var calibrationPath: String?
    /// Where the site file's entries are, for problems found after decoding (the broker settings).
    public var locations: SiteLocations
    public var problems: [(path: String, problem: SiteProblem)]
    public var errors: [(path: String, problem: SiteProblem)] { problems.filter { $0.problem.severity == .error } }

    /// Loads the site at `sitePath` and applies `calibration` (a `--calibration` flag), else the
    /// file its `calibration` key names, else nothing. A calibration naming a node the site does
    /// not have is an error: it was fitted for another site.
    public static func load(sitePath: String, calibration flag: String?) -> CalibratedSite {
        let decoded = Site.load(path: sitePath)
        var out = CalibratedSite(site: decoded.site, uncalibrated: decoded.site, calibrationPath: nil, locations: decoded.locations,
                                 problems: decoded.problems.map { (sitePath, $0) })
        guard decoded.errors.isEmpty else { return out }
        guard let path = flag ?? decoded.site.calibration.map({ SiteCalibration.path($0, besideSite: sitePath) }) else { return out }
        let (site, problems) = applying(calibrationAt: path, to: decoded.site, sitePath: sitePath)
        out.problems += problems.map { (path, $0) }
        guard let site else { return out }
        out.site = site
        out.calibrationPath = path
        return out
    }

    /// `site` (the file at `sitePath`) with the calibration at `path` applied, and the
    /// calibration file's problems; `nil` when it has errors. A calibration naming a node or a
    /// floor the site does not have is an error: it was fitted for another site.
    public static func applying(calibrationAt path: String, to site: Site, sitePath: String) -> (Site?, [SiteProblem]) {
        var (calibration, problems) = SiteCalibration.load(path: path)
        for name in calibration.unknownNodes(in: site) {
            problems.append(SiteProblem(.error, line: 0, key: "nodes", message: "node \(name) is not in \(sitePath): a calibration of another site?"))
        }
        let floors = Set(site.floors.map(\.id))
        for layer in calibration.radioMap?.layers ?? [] where !floors.contains(layer.floor) {
            problems.append(SiteProblem(.error, line: 0, key: "radio_map", message: "floor \(layer.floor) is not in \(sitePath): a calibration of another site?"))
        }
        let (rooms, nodes) = calibration.unknownFingerprintNames(in: site)
        for room in rooms {
            problems.append(SiteProblem(.error, line: 0, key: "fingerprints", message: "room \(room) is not in \(sitePath): a calibration of another site?"))
        }
        // A node taken away since teach-in is never heard again: its part of a fingerprint is left out.
        for node in nodes {
            problems.append(SiteProblem(.warning, line: 0, key: "fingerprints", message: "node \(node) is not in \(sitePath): its part of the fingerprints is not used"))
        }
        guard !problems.contains(where: { $0.severity == .error }) else { return (nil, problems) }
        return (calibration.applied(to: site), problems)
    }
}

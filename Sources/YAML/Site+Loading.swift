public import Wire
public import SiteModel

extension Site {
    /// Reads, parses and decodes a site file. A file that cannot be read or parsed comes back
    /// as an empty site with one error at the line libyaml stopped (0 for an unreadable file).
    public static func load(path: String) -> SiteDecoding {
        do {
            return decode(try YAML.parse(contentsOf: path))
        } catch {
            return SiteDecoding(site: Site(), problems: [SiteProblem(.error, line: error.line, key: "", message: error.message)],
                                locations: SiteLocations())
        }
    }

    /// As `load(path:)`, from text in memory.
    public static func load(yaml text: String) -> SiteDecoding {
        do {
            return decode(try YAML.parse(text))
        } catch {
            return SiteDecoding(site: Site(), problems: [SiteProblem(.error, line: error.line, key: "", message: error.message)],
                                locations: SiteLocations())
        }
    }
}

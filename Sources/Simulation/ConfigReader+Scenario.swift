import Wire
import SiteModel

extension ConfigReader {
    /// A scenario duration given either as `name: 2m` or as `name_s: 120` (zero allowed);
    /// giving both is an error.
    mutating func duration(_ f: Fields, _ name: String) -> Double? {
        if f[name] != nil && f[name + "_s"] != nil {
            error(f.path(name), f.line, "give \(name) or \(name)_s, not both")
            return nil
        }
        if let node = f[name + "_s"] { return number(node, f.path(name + "_s"), within: 0...1e7) }
        guard let node = f[name] else { return nil }
        if let text = node.text, let seconds = Self.seconds(text), seconds == 0 { return 0 }
        return duration(node, f.path(name))
    }
}

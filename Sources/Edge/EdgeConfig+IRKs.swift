#if canImport(Glibc)
import Glibc
#endif
import Wire
import SiteModel
import YAML

/// The `irks` and `irks_file` settings: identity resolving keys, which are secrets. Messages
/// name the key's label and line, never the key; a file other users can read gets a warning.
extension EdgeConfig {
    /// `irks: [{id: NAME, key: HEX32}]` of a config file, as the `NAME:HEX` texts of the flag.
    static func irkTexts(_ list: ConfigNode, origin: String) throws(EdgeConfigError) -> [String] {
        try irkEntries(list, origin: origin).map { "\($0.name):" + String($0.deviceID.dropFirst(4)) }
    }

    /// Entries of a YAML list of `{id, key}` mappings (also `NAME:HEX` texts).
    static func irkEntries(_ list: ConfigNode, origin: String) throws(EdgeConfigError) -> [IRKEntry] {
        guard let items = list.items else {
            throw EdgeConfigError("\(origin): expects a list of {id: NAME, key: 32 hex digits}, got \(list.kindName)")
        }
        var out: [IRKEntry] = []
        for (i, item) in items.enumerated() {
            let at = "\(origin)[\(i)] (line \(item.line))"
            if let text = item.text {
                guard let entry = IRKEntry(flag: text) else { throw EdgeConfigError("\(at): expects NAME:HEX with 32 hex digits") }
                out.append(entry)
                continue
            }
            guard let name = item["id"]?.text, !name.isEmpty else { throw EdgeConfigError("\(at): needs an id (a label for logs)") }
            guard let hex = item["key"]?.text else { throw EdgeConfigError("\(at): \(name) needs a key (32 hex digits)") }
            // The text is not quoted back: it is (nearly) a secret.
            guard let key = IRKEntry.key(hex: hex) else { throw EdgeConfigError("\(at): the key of \(name) is not 32 hex digits") }
            if let extra = item.entries?.first(where: { $0.key != "id" && $0.key != "key" }) {
                throw EdgeConfigError("\(at): unknown key '\(extra.key)'")
            }
            out.append(IRKEntry(name: name, key: key))
        }
        return out
    }

    /// Reads an IRK file: a list of `{id, key}`, or a mapping with such an `irks:` list (a
    /// site file is one).
    static func loadIRKFile(_ path: String, origin: String) throws(EdgeConfigError) -> [IRKEntry] {
        let root: ConfigNode
        do { root = try YAML.parse(contentsOf: path) } catch { throw EdgeConfigError("\(origin): \(error)") }
        if root.entries != nil {
            guard let list = root["irks"] else { throw EdgeConfigError("\(origin): \(path) has no irks: list") }
            return try irkEntries(list, origin: "\(path): irks")
        }
        return try irkEntries(root, origin: path)
    }

    /// A warning when other users may read `path`; `nil` when only its owner and group can.
    static func exposureWarning(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IROTH != 0 else { return nil }
        return "\(path) holds identity resolving keys and is readable by every user; chmod o-r it"
    }
}

extension Reader {
    /// The keys from `irks` (flags or the config file) then `irks_file`, each key once, and
    /// the warnings their sources deserve.
    func irks() throws(EdgeConfigError) -> (keys: [IRKEntry], warnings: [String]) {
        var keys: [IRKEntry] = []
        var warnings: [String] = []
        if let given = values["irks"] {
            for (i, text) in given.texts.enumerated() {
                guard let entry = IRKEntry(flag: text) else {
                    throw EdgeConfigError("\(given.origin)[\(i)]: expects NAME:HEX with 32 hex digits")
                }
                keys.append(entry)
            }
            if given.origin.hasPrefix("--") {
                warnings.append("--irks puts keys on the command line, where other users can read them; prefer --irks-file")
            }
        }
        if let path = text("irks_file") {
            keys += try EdgeConfig.loadIRKFile(path, origin: values["irks_file"]?.origin ?? "irks_file")
            if let warning = EdgeConfig.exposureWarning(path) { warnings.append(warning) }
        }
        var seen = Set<[UInt8]>()
        return (keys.filter { seen.insert($0.key).inserted }, warnings)
    }
}

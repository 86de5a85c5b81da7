import Wire

/// Typed reads from a `ConfigNode` that record a problem with line and key path instead of
/// stopping, so a scenario file gets every mistake reported in one go (as site files do).
struct ConfigReader {
    var problems: [SiteProblem] = []

    mutating func error(_ key: String, _ line: Int, _ message: String) {
        problems.append(SiteProblem(.error, line: line, key: key, message: message))
    }

    mutating func warning(_ key: String, _ line: Int, _ message: String) {
        problems.append(SiteProblem(.warning, line: line, key: key, message: message))
    }

    /// The keys of one mapping and where it is.
    struct Fields {
        let node: ConfigNode
        let key: String

        /// The value of `name`; nil when absent or null.
        subscript(name: String) -> ConfigNode? {
            guard let value = node[name], !value.isNull else { return nil }
            return value
        }

        func path(_ name: String) -> String { key.isEmpty ? name : key + "." + name }
        var line: Int { node.line }
    }

    /// A mapping's keys: unknown keys warn (a typo should not pass silently), repeated keys are errors.
    mutating func fields(_ node: ConfigNode, _ key: String, known: Set<String>) -> Fields? {
        guard let entries = node.entries else {
            error(key, node.line, "expects a mapping of keys, got \(node.kindName)")
            return nil
        }
        var seen: Set<String> = []
        let f = Fields(node: node, key: key)
        for entry in entries {
            if !seen.insert(entry.key).inserted {
                error(f.path(entry.key), entry.keyLine, "key given twice")
            } else if !known.contains(entry.key) {
                warning(f.path(entry.key), entry.keyLine, "unknown key, ignored")
            }
        }
        return f
    }

    mutating func string(_ node: ConfigNode?, _ key: String) -> String? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text else {
            error(key, node.line, "expects a text value, got \(node.kindName)")
            return nil
        }
        return text
    }

    mutating func number(_ node: ConfigNode?, _ key: String, within range: ClosedRange<Double>) -> Double? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text, let value = Double(text), value.isFinite else {
            error(key, node.line, "expects a number, got \(Self.shown(node))")
            return nil
        }
        guard range.contains(value) else {
            error(key, node.line, "\(text) is outside \(Self.shown(range.lowerBound))...\(Self.shown(range.upperBound))")
            return nil
        }
        return value
    }

    mutating func integer(_ node: ConfigNode?, _ key: String, within range: ClosedRange<Int>) -> Int? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text, let value = Int(text), range.contains(value) else {
            error(key, node.line, "expects a whole number in \(range.lowerBound)...\(range.upperBound), got \(Self.shown(node))")
            return nil
        }
        return value
    }

    mutating func bool(_ node: ConfigNode?, _ key: String) -> Bool? {
        guard let node, !node.isNull else { return nil }
        switch node.text?.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            error(key, node.line, "expects true or false, got \(Self.shown(node))")
            return nil
        }
    }

    /// Seconds from `500ms`, `3s`, `2m`, `1h` or a bare number of seconds; zero allowed.
    mutating func duration(_ node: ConfigNode?, _ key: String) -> Double? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text, let seconds = Self.seconds(text), seconds >= 0 else {
            error(key, node.line, "expects a duration such as 500ms, 30s, 2m, 1h, got \(Self.shown(node))")
            return nil
        }
        return seconds
    }

    /// A duration given either as `name: 2m` or as `name_s: 120`; giving both is an error.
    mutating func duration(_ f: Fields, _ name: String) -> Double? {
        if f[name] != nil && f[name + "_s"] != nil {
            error(f.path(name), f.line, "give \(name) or \(name)_s, not both")
            return nil
        }
        if let node = f[name + "_s"] { return number(node, f.path(name + "_s"), within: 0...1e7) }
        return duration(f[name], f.path(name))
    }

    static func seconds(_ text: String) -> Double? {
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let value = Double(text.dropLast(unit.suffix.count)), value.isFinite else { return nil }
            return value * unit.scale
        }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    mutating func list(_ node: ConfigNode?, _ key: String) -> [ConfigNode]? {
        guard let node, !node.isNull else { return nil }
        guard let items = node.items else {
            error(key, node.line, "expects a list, got \(node.kindName)")
            return nil
        }
        return items
    }

    mutating func point2(_ node: ConfigNode?, _ key: String) -> Point2? {
        guard let node, !node.isNull else { return nil }
        guard let items = node.items, items.count == 2 else {
            error(key, node.line, "expects [x, y], got \(node.items.map { "\($0.count) values" } ?? node.kindName)")
            return nil
        }
        guard let x = number(items[0], key + "[0]", within: -1e6...1e6),
              let y = number(items[1], key + "[1]", within: -1e6...1e6) else { return nil }
        return Point2(x, y)
    }

    static func shown(_ node: ConfigNode) -> String {
        guard let text = node.text else { return node.kindName }
        return node.isNull ? "nothing" : "'\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
    }

    static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

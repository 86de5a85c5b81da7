/// Typed reads from a `ConfigNode` that record a problem, with line and key path, instead of
/// stopping: a decoder reads everything it can and reports everything it cannot, all at once.
/// Site files and the simulator's scenario files are read with it.
public struct ConfigReader {
    public var problems: [SiteProblem] = []

    public init() {}

    public mutating func error(_ key: String, _ line: Int, _ message: String) {
        problems.append(SiteProblem(.error, line: line, key: key, message: message))
    }

    public mutating func warning(_ key: String, _ line: Int, _ message: String) {
        problems.append(SiteProblem(.warning, line: line, key: key, message: message))
    }

    /// A mapping's keys, checked: unknown keys warn (a typo should not pass silently),
    /// keys in `ignored` are accepted without a word, repeated keys are errors.
    public mutating func fields(_ node: ConfigNode, _ key: String, known: Set<String>, ignored: Set<String> = []) -> Fields? {
        guard let entries = node.entries else {
            error(key, node.line, "expects a mapping of keys, got \(node.kindName)")
            return nil
        }
        var seen: Set<String> = []
        for entry in entries {
            let path = Fields.join(key, entry.key)
            if !seen.insert(entry.key).inserted {
                error(path, entry.keyLine, "key given twice")
            } else if !known.contains(entry.key) && !ignored.contains(entry.key) {
                warning(path, entry.keyLine, "unknown key, ignored")
            }
        }
        return Fields(node: node, key: key)
    }

    /// The keys of one mapping and where it is, for reading its values.
    public struct Fields {
        public let node: ConfigNode
        public let key: String
        public var line: Int { node.line }

        /// The value of `name`; nil when absent or null.
        public subscript(name: String) -> ConfigNode? {
            guard let value = node[name], !value.isNull else { return nil }
            return value
        }

        public func path(_ name: String) -> String { Fields.join(key, name) }

        public static func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "." + name }
    }

    // MARK: scalars

    public mutating func string(_ node: ConfigNode?, _ key: String) -> String? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text else {
            error(key, node.line, "expects a text value, got \(node.kindName)")
            return nil
        }
        return text
    }

    public mutating func required(_ fields: Fields, _ name: String) -> ConfigNode? {
        guard let value = fields[name] else {
            error(fields.path(name), fields.node.line, "missing")
            return nil
        }
        return value
    }

    /// A finite number; `within` rejects values outside what makes physical sense.
    public mutating func number(_ node: ConfigNode?, _ key: String, within range: ClosedRange<Double>? = nil) -> Double? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text, let value = Double(text), value.isFinite else {
            error(key, node.line, "expects a number, got \(Self.shown(node))")
            return nil
        }
        if let range, !range.contains(value) {
            error(key, node.line, "\(text) is outside \(Self.shown(range.lowerBound))...\(Self.shown(range.upperBound))")
            return nil
        }
        return value
    }

    public mutating func integer(_ node: ConfigNode?, _ key: String, within range: ClosedRange<Int>) -> Int? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text, let value = Int(text), range.contains(value) else {
            error(key, node.line, "expects a whole number in \(range.lowerBound)...\(range.upperBound), got \(Self.shown(node))")
            return nil
        }
        return value
    }

    public mutating func bool(_ node: ConfigNode?, _ key: String) -> Bool? {
        guard let node, !node.isNull else { return nil }
        switch node.text?.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            error(key, node.line, "expects true or false, got \(Self.shown(node))")
            return nil
        }
    }

    /// Seconds from `500ms`, `3s`, `2m`, `1h`, `30d` or a bare number of seconds.
    /// `allowingZero`: 0 is accepted too (a setting whose 0 means "off").
    public mutating func duration(_ node: ConfigNode?, _ key: String, allowingZero: Bool = false) -> Double? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.text, let seconds = Self.seconds(text), seconds > 0 || (allowingZero && seconds == 0) else {
            let what = allowingZero ? "0 or a positive duration" : "a positive duration"
            error(key, node.line, "expects \(what) such as 500ms, 3s, 2m, 1h, 30d, got \(Self.shown(node))")
            return nil
        }
        return seconds
    }

    public static func seconds(_ text: String) -> Double? {
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        for unit in units where text.hasSuffix(unit.suffix) {
            // Finite after scaling too: `1e305d` would otherwise be an infinite duration.
            guard let value = Double(text.dropLast(unit.suffix.count)), (value * unit.scale).isFinite else { return nil }
            return value * unit.scale
        }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    // MARK: lists and points

    /// A list's items; a single value stands for a list of one when `single` allows it.
    public mutating func list(_ node: ConfigNode?, _ key: String, single: Bool = false) -> [ConfigNode]? {
        guard let node, !node.isNull else { return nil }
        if let items = node.items { return items }
        if single, node.text != nil { return [node] }
        error(key, node.line, "expects a list, got \(node.kindName)")
        return nil
    }

    public mutating func strings(_ node: ConfigNode?, _ key: String) -> [String]? {
        guard let items = list(node, key, single: true) else { return nil }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            if let s = string(item, "\(key)[\(i)]") { out.append(s) }
        }
        return out.count == items.count ? out : nil
    }

    /// Exactly `count` numbers in a flow list, as `[x, y]` or `[x, y, z]`.
    public mutating func numbers(_ node: ConfigNode?, _ key: String, count: Int) -> [Double]? {
        guard let node, !node.isNull else { return nil }
        let shape = count == 2 ? "[x, y]" : "[x, y, z]"
        guard let items = node.items, items.count == count else {
            error(key, node.line, "expects \(shape), got \(node.items.map { "\($0.count) values" } ?? node.kindName)")
            return nil
        }
        var out: [Double] = []
        for (i, item) in items.enumerated() {
            if let v = number(item, "\(key)[\(i)]") { out.append(v) }
        }
        return out.count == count ? out : nil
    }

    public mutating func point2(_ node: ConfigNode?, _ key: String) -> Point2? {
        numbers(node, key, count: 2).map { Point2($0[0], $0[1]) }
    }

    public mutating func point3(_ node: ConfigNode?, _ key: String) -> Point3? {
        numbers(node, key, count: 3).map { Point3($0[0], $0[1], $0[2]) }
    }

    /// A list of points with at least `minimum` of them.
    public mutating func points(_ node: ConfigNode, _ key: String, minimum: Int) -> [Point2]? {
        guard let items = list(node, key) else { return nil }
        var out: [Point2] = []
        for (i, item) in items.enumerated() {
            if let p = point2(item, "\(key)[\(i)]") { out.append(p) }
        }
        guard out.count == items.count else { return nil }
        guard out.count >= minimum else {
            error(key, node.line, "needs at least \(minimum) points, got \(out.count)")
            return nil
        }
        return out
    }

    public static func shown(_ node: ConfigNode) -> String {
        guard let text = node.text else { return node.kindName }
        return node.isNull ? "nothing" : "'\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
    }

    public static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

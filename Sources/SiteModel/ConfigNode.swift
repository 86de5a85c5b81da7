/// A configuration tree as a YAML (or JSON) document gives it: scalars, sequences and
/// mappings with their keys in file order, each node carrying where it was written.
///
/// The `YAML` module builds it (anchors and aliases already resolved); `Site.decode` reads it.
/// Keeping the tree here, free of any C type, lets the site rules be tested and fuzzed
/// without libyaml.
public struct ConfigNode: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        /// The scalar's text. `plain` is false when it was quoted or a block literal, so
        /// `"123"` stays a string and `""` is not null.
        case scalar(String, plain: Bool)
        case sequence([ConfigNode])
        case mapping([Entry])
    }

    /// One `key: value` pair of a mapping.
    public struct Entry: Sendable, Equatable {
        public var key: String
        /// Where the key was written (1-based), so a problem with the key itself can point at it.
        public var keyLine: Int
        public var value: ConfigNode
        public init(key: String, keyLine: Int, value: ConfigNode) {
            self.key = key; self.keyLine = keyLine; self.value = value
        }
    }

    public var value: Value
    /// 1-based line of the node's first character.
    public var line: Int
    /// 1-based column of the node's first character.
    public var column: Int

    public init(_ value: Value, line: Int, column: Int) {
        self.value = value; self.line = line; self.column = column
    }

    /// A plain scalar node, the common case when building trees by hand in tests.
    public static func scalar(_ text: String, line: Int = 1, column: Int = 1) -> ConfigNode {
        ConfigNode(.scalar(text, plain: true), line: line, column: column)
    }

    /// Whether this is YAML's null: an empty plain scalar, `~` or `null`.
    public var isNull: Bool {
        guard case .scalar(let text, plain: true) = value else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// The text of a scalar, nil for a sequence or mapping.
    public var text: String? {
        if case .scalar(let text, _) = value { return text }
        return nil
    }

    /// The entries of a mapping, nil otherwise.
    public var entries: [Entry]? {
        if case .mapping(let entries) = value { return entries }
        return nil
    }

    /// The items of a sequence, nil otherwise.
    public var items: [ConfigNode]? {
        if case .sequence(let items) = value { return items }
        return nil
    }

    /// The value of `key` in a mapping (the first, should the file repeat it).
    public subscript(key: String) -> ConfigNode? {
        entries?.first { $0.key == key }?.value
    }

    /// What a problem message calls this kind of node.
    public var kindName: String {
        switch value {
        case .scalar: return isNull ? "nothing" : "a scalar"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

/// A YAML document that could not be read: the file, its syntax, or a limit this reader sets.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the problem; 0 when the problem is not in the text (an unreadable file).
    public let line: Int
    /// 1-based column of the problem; 0 when unknown.
    public let column: Int
    public let message: String

    /// Whether the file could not be read at all (a failure, exit 1), rather than its text
    /// being bad (a usage error, exit 64).
    public var isUnreadable: Bool { line == 0 }

    public init(line: Int, column: Int, message: String) {
        self.line = line; self.column = column; self.message = message
    }

    public var description: String {
        line > 0 ? "line \(line), column \(column): \(message)" : message
    }
}

/// A shell-style pattern over device ids: `*` matches any run of characters, `?` one. The
/// edge's `include`/`exclude` and the site's `exclude_devices` use it.
///
/// Ids are ASCII in practice; matching works on UTF-8 bytes, so `?` matches one byte.
public struct Glob: Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    private let bytes: [UInt8]

    public init(_ pattern: String) {
        self.pattern = pattern
        self.bytes = Array(pattern.utf8)
    }

    public var description: String { pattern }

    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(UnsafeRawBufferPointer($0)) }
    }

    /// Iterative matching with one backtrack point: linear in practice, no recursion.
    private func matches(_ text: UnsafeRawBufferPointer) -> Bool {
        var p = 0, t = 0
        var star = -1, resume = 0
        while t < text.count {
            if p < bytes.count && (bytes[p] == UInt8(ascii: "?") || bytes[p] == text[t]) {
                p += 1; t += 1
            } else if p < bytes.count && bytes[p] == UInt8(ascii: "*") {
                star = p; resume = t; p += 1
            } else if star >= 0 {
                p = star + 1; resume += 1; t = resume
            } else {
                return false
            }
        }
        while p < bytes.count && bytes[p] == UInt8(ascii: "*") { p += 1 }
        return p == bytes.count
    }
}

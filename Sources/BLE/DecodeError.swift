/// The one error of the BLE module: what was wrong and at which byte.
///
/// `offset` counts from the first byte of the input given to the decoder (the H4 packet
/// indicator, the first AD byte, the first byte of a btsnoop file). The value carries no
/// string or reference, so the fast path can throw it without allocating.
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public let kind: Kind
    public let offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String { "\(kind) at offset \(offset)" }

    /// What went wrong. A struct of static values rather than an enum so kinds may grow.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let code: UInt8
        private let name: StaticString

        private init(_ code: UInt8, _ name: StaticString) {
            self.code = code
            self.name = name
        }

        /// A field runs past the end of the bytes.
        public static let truncated = Kind(1, "truncated")
        /// A header's length field disagrees with the bytes that follow it.
        public static let lengthMismatch = Kind(2, "length mismatch")
        /// An AD structure's length byte runs past the end of the advertising data.
        public static let adLengthOverrun = Kind(3, "AD structure length overruns the data")
        /// Not a btsnoop file (bad magic).
        public static let notBtsnoop = Kind(4, "not a btsnoop file")
        /// A btsnoop version or datalink this reader does not know.
        public static let unsupportedBtsnoop = Kind(5, "unsupported btsnoop version or datalink")
        /// An empty packet, or one whose H4 indicator is none of the five packet types.
        public static let badPacketType = Kind(6, "bad H4 packet type")

        public var description: String { name.description }

        public static func == (a: Kind, b: Kind) -> Bool { a.code == b.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }
}

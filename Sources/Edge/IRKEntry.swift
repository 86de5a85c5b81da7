import BLE

/// One identity resolving key of the edge config (`irks: [{id, key}]`).
///
/// The key is a secret: anyone holding it can follow the phone. Only `name` is ever logged;
/// `description` leaves the key out.
public struct IRKEntry: Sendable, Equatable, CustomStringConvertible {
    /// A label for logs (`phone-jane`); readings carry `deviceID`, not this.
    public var name: String
    /// 16 bytes, most significant first, as written in hex.
    public var key: [UInt8]

    public init(name: String, key: [UInt8]) {
        self.name = name
        self.key = key
    }

    /// Parses `NAME:HEX` (the flag form); `nil` unless HEX is 32 hex digits.
    public init?(flag text: String) {
        guard let colon = text.lastIndex(of: ":"), let key = Self.key(hex: String(text[text.index(after: colon)...])) else {
            return nil
        }
        self.init(name: String(text[..<colon]), key: key)
    }

    /// 16 bytes from 32 hex digits (either case); `nil` otherwise.
    public static func key(hex: String) -> [UInt8]? {
        guard hex.utf8.count == 32, let key = Hex.bytes(hex), key.count == 16 else { return nil }
        return key
    }

    /// docs/protocol.md#device-ids: `irk:<32 lower-case hex digits of the key>`.
    public var deviceID: String { "irk:" + Hex.string(key) }

    public var description: String { "IRK \(name)" }
}

/// AD type codes from the Bluetooth Assigned Numbers, section 2.3.
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incompleteUUIDs16: UInt8 = 0x02
    public static let completeUUIDs16: UInt8 = 0x03
    public static let incompleteUUIDs32: UInt8 = 0x04
    public static let completeUUIDs32: UInt8 = 0x05
    public static let incompleteUUIDs128: UInt8 = 0x06
    public static let completeUUIDs128: UInt8 = 0x07
    public static let shortName: UInt8 = 0x08
    public static let completeName: UInt8 = 0x09
    public static let txPowerLevel: UInt8 = 0x0A
    public static let serviceData16: UInt8 = 0x16
    public static let appearance: UInt8 = 0x19
    public static let serviceData32: UInt8 = 0x20
    public static let serviceData128: UInt8 = 0x21
    public static let manufacturerData: UInt8 = 0xFF
}

/// Walks the AD structures of advertising data (Core Vol 3 Part C 11): a length byte, a
/// type byte and `length - 1` value bytes. A zero length ends the significant part (the
/// rest is padding). Calls `body(type, value, offset of the length byte)` for each structure
/// and returns the error of a length that runs past the data; structures before it were
/// already delivered. `origin` is added to offsets.
public func walkADStructures(_ data: UnsafeRawBufferPointer, origin: Int = 0,
                             _ body: (UInt8, UnsafeRawBufferPointer, Int) -> Void) -> DecodeError? {
    var cursor = ByteCursor(data, origin: origin)
    while let length = cursor.readUInt8() {
        if length == 0 { return nil }
        let start = cursor.offset - 1
        guard Int(length) <= cursor.remaining, let type = cursor.readUInt8(),
              let value = cursor.readBytes(Int(length) - 1) else {
            return DecodeError(.adLengthOverrun, at: start)
        }
        body(type, value, start)
    }
    return nil
}

/// One AD structure, copied out of the advertising data.
public struct ADStructure: Hashable, Sendable {
    public let type: UInt8
    public let value: [UInt8]
    /// Offset of the structure's length byte in the input the walk was given.
    public let offset: Int

    public init(type: UInt8, value: [UInt8], offset: Int) {
        self.type = type
        self.value = value
        self.offset = offset
    }

    /// The decoded field.
    public var field: ADField { ADField(type: type, value: value) }

    /// Every structure of `data`, and the error that stopped the walk, if any.
    public static func parse(_ data: [UInt8], origin: Int = 0) -> (structures: [ADStructure], error: DecodeError?) {
        var structures: [ADStructure] = []
        let error = data.withUnsafeBytes { raw in
            walkADStructures(raw, origin: origin) { type, value, offset in
                structures.append(ADStructure(type: type, value: Array(value), offset: offset))
            }
        }
        return (structures, error)
    }
}

/// The meaning of one AD structure. A value too short for its type is kept as `.malformed`
/// rather than thrown: the other structures of the advertisement are still good.
public enum ADField: Hashable, Sendable {
    case flags(UInt8)
    case localName(LocalName, complete: Bool)
    case txPowerLevel(Int8)
    case serviceUUIDs16([UInt16], complete: Bool)
    case serviceUUIDs32([UInt32], complete: Bool)
    case serviceUUIDs128([UUID128], complete: Bool)
    case serviceData16(uuid: UInt16, data: [UInt8])
    case serviceData32(uuid: UInt32, data: [UInt8])
    case serviceData128(uuid: UUID128, data: [UInt8])
    case manufacturerData(company: UInt16, data: [UInt8])
    case appearance(UInt16)
    /// A type this decoder does not interpret.
    case other(type: UInt8, value: [UInt8])
    /// A known type whose value has the wrong length for it.
    case malformed(type: UInt8, value: [UInt8])

    public init(type: UInt8, value: [UInt8]) {
        self = value.withUnsafeBytes { raw in
            ADField.decode(type: type, ByteCursor(raw)) ?? .malformed(type: type, value: value)
        }
    }

    private static func decode(type: UInt8, _ cursor: ByteCursor) -> ADField? {
        var c = cursor
        switch type {
        case ADType.flags:
            return c.remaining >= 1 ? c.readUInt8().map(ADField.flags) : nil
        case ADType.shortName, ADType.completeName:
            let name = LocalName(bytes: Array(c.bytes))
            return .localName(name, complete: type == ADType.completeName)
        case ADType.txPowerLevel:
            return c.remaining == 1 ? c.readInt8().map(ADField.txPowerLevel) : nil
        case ADType.incompleteUUIDs16, ADType.completeUUIDs16:
            return list(&c, width: 2) { c in c.readUInt16LE() }
                .map { .serviceUUIDs16($0, complete: type == ADType.completeUUIDs16) }
        case ADType.incompleteUUIDs32, ADType.completeUUIDs32:
            return list(&c, width: 4) { c in c.readUInt32LE() }
                .map { .serviceUUIDs32($0, complete: type == ADType.completeUUIDs32) }
        case ADType.incompleteUUIDs128, ADType.completeUUIDs128:
            return list(&c, width: 16) { c in UUID128.readLittleEndian(&c) }
                .map { .serviceUUIDs128($0, complete: type == ADType.completeUUIDs128) }
        case ADType.serviceData16:
            return c.readUInt16LE().map { .serviceData16(uuid: $0, data: rest(c)) }
        case ADType.serviceData32:
            return c.readUInt32LE().map { .serviceData32(uuid: $0, data: rest(c)) }
        case ADType.serviceData128:
            return UUID128.readLittleEndian(&c).map { .serviceData128(uuid: $0, data: rest(c)) }
        case ADType.manufacturerData:
            return c.readUInt16LE().map { .manufacturerData(company: $0, data: rest(c)) }
        case ADType.appearance:
            return c.remaining == 2 ? c.readUInt16LE().map(ADField.appearance) : nil
        default:
            return .other(type: type, value: Array(c.bytes))
        }
    }

    /// A list of fixed-width items; `nil` when the value is not a whole number of them.
    private static func list<T>(_ c: inout ByteCursor, width: Int, _ read: (inout ByteCursor) -> T?) -> [T]? {
        guard c.remaining % width == 0 else { return nil }
        var items: [T] = []
        items.reserveCapacity(c.remaining / width)
        while !c.isAtEnd, let item = read(&c) { items.append(item) }
        return items
    }

    private static func rest(_ c: ByteCursor) -> [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: c.bytes[c.position...]))
    }
}

/// A device's local name. Names are meant to be UTF-8 but devices send anything, so the
/// bytes are kept and the text is offered only when it is valid.
public struct LocalName: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The name as text, or `nil` if the bytes are not valid UTF-8.
    public var string: String? { String(validating: bytes, as: UTF8.self) }

    /// How many leading bytes are valid UTF-8 before any NUL: the part a C string reader
    /// such as BlueZ shows of a name that is padded, cut mid-character or not UTF-8 at all.
    public var readableCount: Int {
        var count = 0
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while case .valid(let encoded) = parser.parseScalar(from: &iterator),
              Unicode.UTF8.decode(encoded).value != 0 {
            count += encoded.count
        }
        return count
    }

    /// The text of the first `readableCount` bytes; all of the name when `string` is not nil
    /// and it holds no NUL.
    public var readableText: String { String(decoding: bytes[..<readableCount], as: UTF8.self) }
}

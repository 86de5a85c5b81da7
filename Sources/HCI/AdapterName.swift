/// How the user named an adapter: `hci0`, or its address `AA:BB:CC:DD:EE:FF`.
public enum AdapterName: Hashable, Sendable, CustomStringConvertible {
    case index(UInt16)
    case address(String)

    public init(_ text: String) throws(HCIError) {
        if text.hasPrefix("hci"), let n = UInt16(text.dropFirst(3)), text.count > 3, text.count <= 8 {
            self = .index(n)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else {
            throw HCIError(.badAdapterName, "adapter '\(text)'")
        }
        self = .address(text.uppercased())
    }

    public var description: String {
        switch self {
        case let .index(n): "hci\(n)"
        case let .address(a): a
        }
    }
}

/// Every field of advertising data decoded and gathered by meaning, in the order sent: what
/// `whereabouts decode` prints and tests assert. Built on demand from the copied structures
/// of an `AdvertisingReport`; the edge's per-advertisement path reads `ADSummary` instead and
/// never pays for these lists.
public struct ADFields: Hashable, Sendable {
    /// AD type 0x01, the first one sent.
    public var flags: UInt8?
    /// Complete (0x09) and shortened (0x08) local names.
    public var names: [Name] = []
    /// AD type 0x0A, the first one sent.
    public var txPowerLevel: Int8?
    /// The 16-, 32- and 128-bit service UUID lists, flattened in the order sent.
    public var services: [Service] = []
    public var serviceData: [ServiceData] = []
    public var manufacturerData: [ManufacturerData] = []
    /// AD type 0x19, the first one sent.
    public var appearance: UInt16?
    /// Structures of a known type whose value has the wrong length for it.
    public var malformed: [ADStructure] = []
    /// Structures of a type this decoder does not interpret.
    public var other: [ADStructure] = []

    /// Gathers the decoded fields of `structures`.
    public init(_ structures: [ADStructure]) {
        for s in structures { add(s) }
    }

    /// One local name and whether it was sent as the complete one.
    public struct Name: Hashable, Sendable {
        public let name: LocalName
        public let complete: Bool

        public init(name: LocalName, complete: Bool) {
            self.name = name
            self.complete = complete
        }
    }

    /// One service UUID, widened to 128 bits over the Bluetooth base UUID when sent short.
    public struct Service: Hashable, Sendable {
        public let uuid: UUID128
        /// 16, 32 or 128: the width it was sent in.
        public let bits: Int
        /// Whether it came in a complete list (else an incomplete one).
        public let complete: Bool

        public init(uuid: UUID128, bits: Int, complete: Bool) {
            self.uuid = uuid
            self.bits = bits
            self.complete = complete
        }
    }

    public struct ServiceData: Hashable, Sendable {
        public let uuid: UUID128
        /// 16, 32 or 128: the width of the UUID as sent.
        public let bits: Int
        public let data: [UInt8]

        public init(uuid: UUID128, bits: Int, data: [UInt8]) {
            self.uuid = uuid
            self.bits = bits
            self.data = data
        }
    }

    public struct ManufacturerData: Hashable, Sendable {
        /// The company identifier (Bluetooth Assigned Numbers), sent little-endian.
        public let company: UInt16
        public let data: [UInt8]

        public init(company: UInt16, data: [UInt8]) {
            self.company = company
            self.data = data
        }
    }

    /// The first name that is valid UTF-8, as `whereabouts decode` has always printed it.
    public var name: String? { names.lazy.compactMap(\.name.string).first }

    private mutating func add(_ s: ADStructure) {
        switch s.field {
        case .flags(let v): if flags == nil { flags = v }
        case .localName(let name, let complete): names.append(Name(name: name, complete: complete))
        case .txPowerLevel(let v): if txPowerLevel == nil { txPowerLevel = v }
        case .serviceUUIDs16(let list, let complete):
            services += list.map { Service(uuid: UUID128(short: UInt32($0)), bits: 16, complete: complete) }
        case .serviceUUIDs32(let list, let complete):
            services += list.map { Service(uuid: UUID128(short: $0), bits: 32, complete: complete) }
        case .serviceUUIDs128(let list, let complete):
            services += list.map { Service(uuid: $0, bits: 128, complete: complete) }
        case .serviceData16(let uuid, let data):
            serviceData.append(ServiceData(uuid: UUID128(short: UInt32(uuid)), bits: 16, data: data))
        case .serviceData32(let uuid, let data): serviceData.append(ServiceData(uuid: UUID128(short: uuid), bits: 32, data: data))
        case .serviceData128(let uuid, let data): serviceData.append(ServiceData(uuid: uuid, bits: 128, data: data))
        case .manufacturerData(let company, let data): manufacturerData.append(ManufacturerData(company: company, data: data))
        case .appearance(let v): if appearance == nil { appearance = v }
        case .other: other.append(s)
        case .malformed: malformed.append(s)
        }
    }
}

extension AdvertisingReport {
    /// Every decoded AD field; computed on each call, so only its readers pay for it.
    public var fields: ADFields { ADFields(structures) }
}

import BLE
import Wire

/// A device while the simulation runs: when it advertises next, the address and bytes it
/// sends, and its track.
package struct Advertiser: Sendable {
    package let spec: DeviceSpec
    package let id: String
    let kind: ReadingKind
    package let track: Track
    /// What it really sends at 1 m: the announced power plus its own error.
    package let truePower: Double
    package let bodyLoss: Double
    /// The key of a phone; `nil` for beacons and fixed addresses.
    let irk: IdentityResolvingKey?
    /// Whether its readings carry its id: false for a stranger's phone nobody has the key of.
    let named: Bool

    private(set) var address: BluetoothAddress
    private(set) var addressText: String
    let addressType: AddressType
    let eventType: UInt8
    private(set) var data: [UInt8]
    /// The measured power readings report: the frame's, for iBeacons.
    let announcedPower: Int?

    /// Seconds since start of the next advertising event and of the next address change.
    private(set) var nextEvent: Double
    private var nextRotation: Double
    private var rng: RandomStream
    /// Events sent while present, and addresses used.
    private(set) var events = 0
    private(set) var addresses = 1

    init(spec: DeviceSpec, track: Track, irk: IdentityResolvingKey?, named: Bool, effects: ChannelEffects, rng: RandomStream) {
        var rng = rng
        self.spec = spec
        id = spec.id
        kind = spec.readingKind
        self.track = track
        self.irk = irk
        self.named = named
        truePower = Double(spec.txPower) + rng.gaussian() * effects.txErrorSD
        bodyLoss = spec.bodyLoss ?? effects.bodyLoss
        nextEvent = rng.uniform() * spec.interval
        switch spec.kind {
        case let .iBeacon(uuid, major, minor):
            // Beacons sit on a static random address (top bits 11), fixed for life.
            address = BluetoothAddress(rawValue: rng.next() | 0xC000_0000_0000)
            addressType = .randomDevice
            eventType = 3  // ADV_NONCONN_IND
            data = AdvertisingData.iBeacon(uuid: uuid, major: major, minor: minor, power: spec.txPower)
            announcedPower = spec.txPower
            nextRotation = .infinity
        case let .phone(_, _, rotation):
            address = irk?.address(random: UInt32(truncatingIfNeeded: rng.next())) ?? BluetoothAddress(rawValue: 0)
            addressType = .randomDevice
            eventType = 0  // ADV_IND
            data = AdvertisingData.phone(nonce: rng.next())
            announcedPower = nil
            nextRotation = rng.uniform() * rotation
        case let .mac(fixed):
            address = fixed
            addressType = .publicDevice
            eventType = 0
            data = AdvertisingData.named("sim-\(fixed.rawValue & 0xFFFF)")
            announcedPower = nil
            nextRotation = .infinity
        }
        addressText = address.description
        self.rng = rng
    }

    /// Moves to the event after this one: the interval plus a random delay (advDelay).
    mutating func scheduleNext() {
        nextEvent += spec.interval + rng.uniform() * spec.jitter
    }

    /// Counts an event that was sent while the device was present.
    mutating func countEvent() { events += 1 }

    /// A phone takes a new address (and new payload bytes) when its rotation time comes.
    mutating func rotateIfDue(at t: Double) {
        guard t >= nextRotation, case let .phone(_, _, rotation) = spec.kind, let irk else { return }
        while nextRotation <= t { nextRotation += rotation }
        address = irk.address(random: UInt32(truncatingIfNeeded: rng.next()))
        addressText = address.description
        data = AdvertisingData.phone(nonce: rng.next())
        addresses += 1
    }
}

/// Advertising data (AD structures) as the simulated devices send them.
enum AdvertisingData {
    /// Flags (LE General Discoverable, no BR/EDR), then Apple's iBeacon frame.
    static func iBeacon(uuid: [UInt8], major: UInt16, minor: UInt16, power: Int) -> [UInt8] {
        var out: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        out += uuid
        out += [UInt8(major >> 8), UInt8(truncatingIfNeeded: major), UInt8(minor >> 8), UInt8(truncatingIfNeeded: minor)]
        out.append(UInt8(bitPattern: Int8(clamping: power)))
        return out
    }

    /// Flags, then Apple's "nearby" manufacturer data as iPhones send it: it names no
    /// device, so only the address (resolved with the IRK) tells who this is.
    static func phone(nonce: UInt64) -> [UInt8] {
        var out: [UInt8] = [0x02, 0x01, 0x1A, 0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05, 0x01, 0x18]
        for i in 0..<3 { out.append(UInt8(truncatingIfNeeded: nonce >> UInt64(8 * i))) }
        return out
    }

    /// Flags and a short local name.
    static func named(_ name: String) -> [UInt8] {
        let bytes = Array(name.utf8.prefix(26))
        return [0x02, 0x01, 0x06, UInt8(bytes.count + 1), 0x08] + bytes
    }
}

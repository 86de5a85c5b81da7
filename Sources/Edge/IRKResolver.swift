import BLE
import Crypto

/// Names phones: finds which configured identity resolving key made a resolvable private
/// address (Core Vol 6 Part B 1.3.2.3), so its readings carry `irk:<key hex>` (docs/protocol.md#device-ids).
///
/// Trying a key costs one AES block, so the answer is cached per address: a phone keeps an
/// address for about 15 minutes and advertises several times a second on it, so the steady
/// state is one dictionary lookup per advertisement and no AES. Addresses no key resolves are
/// cached too (a stranger's phone costs the same). The cache is cleared when it reaches
/// `cacheLimit`, so a crowd of passing phones cannot grow memory without bound.
///
/// Not thread-safe (each key's cipher context has state); the pipeline owns one on the
/// source thread.
final class IRKResolver {
    /// Per key, in configuration order: its `ah` and the device id it gives.
    private let hashes: [ResolvingHash]
    /// `irk:<32 lower-case hex digits of the key>`.
    let ids: [String]
    /// The configuration's labels, for log lines (never the keys).
    let names: [String]
    private let cacheLimit: Int
    /// Address → index of the key that resolves it, or -1 when none does.
    private var cache: [BluetoothAddress: Int] = [:]
    /// Addresses tried against the keys (cache misses), for tests and telemetry.
    private(set) var attempts = 0

    init(keys: [IRKEntry], cacheLimit: Int = 20_000) throws(CryptoError) {
        var hashes: [ResolvingHash] = []
        for entry in keys { hashes.append(try ResolvingHash(irk: entry.key)) }
        self.hashes = hashes
        ids = keys.map(\.deviceID)
        names = keys.map(\.name)
        self.cacheLimit = max(cacheLimit, 1)
        cache.reserveCapacity(min(self.cacheLimit, 4096))
    }

    var isEmpty: Bool { hashes.isEmpty }

    /// The index (in `ids`) of the key that made `address`, or `nil` when the address is not
    /// a resolvable private one or no configured key made it.
    func resolve(_ address: BluetoothAddress, type: AddressType) -> Int? {
        guard !hashes.isEmpty, type.randomKind(of: address) == .resolvable else { return nil }
        if let known = cache[address] { return known < 0 ? nil : known }
        if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
        attempts += 1
        let found = hashes.firstIndex { $0.resolves(address.rawValue) }
        cache[address] = found ?? -1
        return found
    }
}

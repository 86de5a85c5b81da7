import Wire

/// What every reading of a device reads or writes, in one 64-byte record on a cache line of
/// its own (`HotDevices`). At 10,000 devices a reading's device is not in cache: with these
/// fields spread over `DeviceState` (592 bytes) and the links in an array of their own, a
/// reading missed two or three lines for them where it now misses one.
struct DeviceHot: Sendable {
    static let inlineLinks = 4

    var lastReading = -Double.infinity
    /// When the next solve falls due, less `updateInterval` (the device's own phase).
    var lastSolve = -Double.infinity
    /// The measured power of the latest frame that carried one.
    var frameTxRef: Double?
    /// Not tracked: matched `exclude_devices` (readings are refused), or is a node's beacon.
    var excluded = false
    var isQueued = false
    /// The device's first links (one per node that heard it, with the node beside each);
    /// unused entries have node -1, so finding a reading's link compares four nodes, no count.
    fileprivate(set) var inlineCount: UInt8 = 0
    fileprivate var inline = (DeviceLink(), DeviceLink(), DeviceLink(), DeviceLink())

    init(excluded: Bool = false) { self.excluded = excluded }

    /// Records a reading at `t` whose frame carried measured power `tx` (if any), and marks
    /// the device queued; returns whether it was queued already (`Engine.record`).
    @inline(__always)
    mutating func heard(tx: Int?, at t: Double) -> Bool {
        if let tx, tx < 0, tx >= -127 { frameTxRef = Double(tx) }
        if t > lastReading { lastReading = t }
        defer { isQueued = true }
        return isQueued
    }

    /// The link with node `n` among the inline ones.
    @inline(__always)
    func inlineLink(to n: Int32) -> Int32? {
        if inline.0.node == n { return inline.0.link }
        if inline.1.node == n { return inline.1.link }
        if inline.2.node == n { return inline.2.link }
        if inline.3.node == n { return inline.3.link }
        return nil
    }

    fileprivate subscript(inline i: Int) -> DeviceLink {
        get {
            switch i {
            case 0: inline.0
            case 1: inline.1
            case 2: inline.2
            default: inline.3
            }
        }
        set {
            switch i {
            case 0: inline.0 = newValue
            case 1: inline.1 = newValue
            case 2: inline.2 = newValue
            default: inline.3 = newValue
            }
        }
    }
}

/// `DeviceHot` records by device index, each on a 64-byte line of its own: a Swift array's
/// elements start 32 bytes into a 16-byte-aligned block, so each record would straddle two.
final class HotDevices {
    /// The records; `Engine`'s hot path indexes it with device indices it made itself.
    private(set) var base: UnsafeMutablePointer<DeviceHot>
    private(set) var count = 0
    private var capacity = 64

    init() { base = Self.allocate(capacity) }

    deinit {
        base.deinitialize(count: count)
        UnsafeMutableRawPointer(base).deallocate()
    }

    subscript(d: Int) -> DeviceHot {
        get {
            precondition(d >= 0 && d < count)
            return base[d]
        }
        _modify {
            precondition(d >= 0 && d < count)
            yield &base[d]
        }
    }

    func append(_ record: DeviceHot) {
        if count == capacity {
            let grown = Self.allocate(capacity * 2)
            grown.moveInitialize(from: base, count: count)
            UnsafeMutableRawPointer(base).deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: record)
        count += 1
    }

    private static func allocate(_ n: Int) -> UnsafeMutablePointer<DeviceHot> {
        UnsafeMutableRawPointer.allocate(byteCount: n * MemoryLayout<DeviceHot>.stride, alignment: 64)
            .bindMemory(to: DeviceHot.self, capacity: n)
    }
}

extension Engine {
    /// How many links device `d` has: inline, then in `DeviceState.moreLinks`, in the order made.
    func linkCount(device d: Int) -> Int { Int(hot[d].inlineCount) + devices[d].moreLinks.count }

    /// Device `d`'s `i`th link (`i < linkCount(device: d)`).
    func link(device d: Int, at i: Int) -> DeviceLink {
        assert(i < linkCount(device: d))
        return i < DeviceHot.inlineLinks ? hot[d][inline: i] : devices[d].moreLinks[i - DeviceHot.inlineLinks]
    }

    /// All of device `d`'s links, in order.
    func links(ofDevice d: Int) -> [DeviceLink] { (0..<linkCount(device: d)).map { link(device: d, at: $0) } }

    func appendLink(device d: Int, _ l: DeviceLink) {
        let n = Int(hot[d].inlineCount)
        guard n < DeviceHot.inlineLinks else { return devices[d].moreLinks.append(l) }
        hot[d][inline: n] = l
        hot[d].inlineCount += 1
    }

    /// Removes device `d`'s `i`th link, keeping the others' order (observations are gathered
    /// in it, and the locator's sums follow their order).
    func removeLink(device d: Int, at i: Int) {
        let n = Int(hot[d].inlineCount)
        guard i < n else { devices[d].moreLinks.remove(at: i - n); return }
        for j in i..<(n - 1) { hot[d][inline: j] = hot[d][inline: j + 1] }
        if devices[d].moreLinks.isEmpty {
            hot[d][inline: n - 1] = DeviceLink()
            hot[d].inlineCount -= 1
        } else {
            hot[d][inline: n - 1] = devices[d].moreLinks.removeFirst()
        }
    }
}

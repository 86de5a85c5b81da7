public import Wire

/// Readings waiting to be published, oldest first, bounded: when full, appending drops the
/// oldest reading and counts it, so a long broker outage costs the oldest data, never
/// memory, and never silently.
///
/// The ring's storage is allocated once; appending and taking allocate nothing.
public struct ReadingQueue: Sendable {
    private var ring: [Reading]
    private var head = 0
    public private(set) var count = 0
    /// Readings dropped because the queue was full.
    public private(set) var dropped: UInt64 = 0

    public init(capacity: Int) {
        let placeholder = Reading(id: "", rssi: 0, t: 0, kind: .mac)
        ring = Array(repeating: placeholder, count: max(capacity, 1))
    }

    public var capacity: Int { ring.count }
    public var isEmpty: Bool { count == 0 }

    public mutating func append(_ reading: Reading) {
        if count == ring.count {
            head = next(head)
            count -= 1
            dropped += 1
        }
        ring[(head + count) % ring.count] = reading
        count += 1
    }

    /// Moves up to `max` of the oldest readings into `out` (appended, in order).
    public mutating func take(max: Int, into out: inout [Reading]) {
        let n = min(max, count)
        for _ in 0..<n {
            out.append(ring[head])
            head = next(head)
        }
        count -= n
    }

    /// Puts readings taken by `take` back at the front, as if never taken. What no longer
    /// fits (newer readings arrived meanwhile) is dropped oldest first and counted.
    public mutating func restore(_ readings: [Reading]) {
        let room = ring.count - count
        let kept = readings.suffix(room)
        dropped += UInt64(readings.count - kept.count)
        for reading in kept.reversed() {
            head = (head + ring.count - 1) % ring.count
            ring[head] = reading
            count += 1
        }
    }

    @inline(__always)
    private func next(_ i: Int) -> Int { i + 1 == ring.count ? 0 : i + 1 }
}

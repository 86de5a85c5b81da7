public import Wire

/// Which readings the node publishes.
///
/// The id rules are evaluated once per device (the pipeline caches the answer), so globs
/// cost nothing per advertisement.
public enum ReadingFilter {
    public struct Rules: Sendable {
        /// When not empty, only ids matching one of these are published.
        public var include: [Glob]
        /// Ids matching one of these are never published (wins over `include`).
        public var exclude: [Glob]
        /// Readings weaker than this (dBm) are dropped.
        public var minRSSI: Int?
        /// At most one reading per device per this many seconds.
        public var minInterval: Double?

        public init(include: [Glob] = [], exclude: [Glob] = [], minRSSI: Int? = nil, minInterval: Double? = nil) {
            self.include = include; self.exclude = exclude; self.minRSSI = minRSSI; self.minInterval = minInterval
        }

        /// Whether a device with this id may be published at all.
        public func allows(id: String) -> Bool {
            if exclude.contains(where: { $0.matches(id) }) { return false }
            return include.isEmpty || include.contains { $0.matches(id) }
        }

        /// Whether a reading of an allowed device passes the signal and rate rules;
        /// `lastAccepted` is the time of the device's last reading that passed.
        @inline(__always)
        public func accepts(rssi: Int, at t: Double, lastAccepted: Double?) -> Bool {
            if let minRSSI, rssi < minRSSI { return false }
            if let minInterval, let last = lastAccepted, t - last < minInterval, t >= last { return false }
            return true
        }
    }
}

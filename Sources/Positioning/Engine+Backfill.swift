import Wire

/// Handing a device's tracking state from one engine of a site to another: a backfill pass
/// (docs/operations.md, Outages) solves a gap in a second engine that starts where the live
/// engine stood, and the live engine then goes on from where the pass ended, so the gap's
/// room changes are made once, in the pass, and not again by the live engine.
extension Engine {
    /// Ids of the devices this engine tracks now (seen and not forgotten; node beacons and
    /// excluded ids left out).
    public var trackedIds: [String] {
        devices.indices.compactMap { d in devices[d].isFree || hot[d].excluded ? nil : devices[d].id }
    }

    /// Whether device `id` was ever placed since it was last away (it has an open room).
    public func isPresent(_ id: String) -> Bool {
        deviceIndex(id).map { devices[$0].isPresent } ?? false
    }

    /// Copies device `id`'s state from `other`, an engine of the same site: its track, room
    /// and zone presence, learned power and solve phase. Readings are not copied (each engine
    /// keeps its own links); the time it was last heard becomes the later of the two, but no
    /// later than `heardUntil` (a pass seeded from the live engine must not see readings
    /// the live engine took after the gap). Returns `false` when `other` does not know the
    /// id or this engine is full.
    @discardableResult
    public func adoptDevice(_ id: String, from other: Engine, heardUntil: Double = .infinity) -> Bool {
        guard other !== self, let s = other.deviceIndex(id), !other.devices[s].isFree else { return false }
        guard let d = deviceIndex(id) ?? internAdopted(id) else { return false }
        var state = other.devices[s]
        state.moreLinks = devices[d].moreLinks
        devices[d] = state
        let source = other.hot[s]
        hot[d].lastSolve = source.lastSolve
        hot[d].lastReading = min(max(hot[d].lastReading, source.lastReading), max(heardUntil, hot[d].lastReading))
        if let tx = source.frameTxRef { hot[d].frameTxRef = tx }
        return true
    }

    /// The device index of `id`, if this engine knows it.
    func deviceIndex(_ id: String) -> Int? {
        var id = id
        return id.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return ids.find(raw, hash: DeviceIds.hash(raw)).map(Int.init)
        }
    }

    func internAdopted(_ id: String) -> Int? {
        var copy = id
        return copy.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return intern(id, bytes: raw, hash: DeviceIds.hash(raw)).map(Int.init)
        }
    }
}

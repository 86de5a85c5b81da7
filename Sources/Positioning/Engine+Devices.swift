import Wire

/// Device slots: a new id interned (its state, tracker and exclusion), a silent one forgotten
/// (its slot and links kept for reuse), a device's links beyond the inline ones. Out of line
/// on purpose: the per-reading path (`resolve`) calls them only for what is new.
extension Engine {
    /// A new device's tracker. With `Pipeline.stillMean` it also keeps the mean of a still
    /// device's fixes; the baselines report the constant-velocity track they are compared with.
    func makeTrack() -> Track {
        var track = Track(options: options.tracker)
        if pipeline.stillMean, options.stillMean.settle.isFinite { track.still = StillAverage(options: options.stillMean) }
        return track
    }

    @inline(never)
    func intern(_ id: String, bytes: UnsafeRawBufferPointer, hash: Int) -> Int32? {
        guard deviceCount < maxDevices else { return nil }
        let config = site.devices.first { $0.id == id }
        let beaconOf = beaconNodes[id] ?? -1
        let excluded = beaconOf >= 0 || site.excludeDevices.contains { Glob($0).matches(id) }
        var state = DeviceState(id: id, name: config?.name, configuredTxRef: config?.txRef, track: makeTrack())
        state.beaconOf = beaconOf
        if let place = fixedPlace(of: config) { (state.fixedPoint, state.fixedFloor) = (place.point, place.floor) }
        if !restoredPowers.isEmpty, let power = restoredPowers.removeValue(forKey: id) { state.txOffset = power }
        let index: Int32
        if let free = freeDevices.popLast() {
            index = free
            devices[Int(free)] = state
            hot[Int(free)] = DeviceHot(excluded: excluded)
        } else {
            devices.append(state)
            hot.append(DeviceHot(excluded: excluded))
            index = Int32(devices.count - 1)
        }
        ids.insert(index, id: bytes, hash: hash)
        return index
    }

    /// Forgets device `d` (not present, silent for `forgetAfter`): its slot and links are
    /// kept for reuse, its id is handed to the owner through `takeForgotten`.
    func forget(device d: Int) {
        for l in links(ofDevice: d) { freeLinks[Int(l.node)].append(l.link) }
        var id = devices[d].id
        id.withUTF8 { ids.remove(UnsafeRawBufferPointer($0), hash: DeviceIds.hash(UnsafeRawBufferPointer($0))) }
        forgottenIds.append(devices[d].id)
        devices[d] = DeviceState(id: "", name: nil, configuredTxRef: nil, track: makeTrack())
        devices[d].isFree = true
        hot[d] = DeviceHot()
        freeDevices.append(Int32(d))
    }

    /// Device `d`'s link with node `n` when it is not among the inline ones: after them, or new.
    @inline(never)
    func moreLink(device d: Int, node n: Int32) -> Int32 {
        for l in devices[d].moreLinks where l.node == n { return l.link }
        let l = freeLinks[Int(n)].popLast() ?? links.make()
        appendLink(device: d, DeviceLink(node: n, link: l))
        return l
    }
}

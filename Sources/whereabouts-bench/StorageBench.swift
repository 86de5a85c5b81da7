import Foundation
import Storage

/// Storage throughput: track points written per second through `TrackWriter` into a real SQLite file
/// (thinning off, so every point becomes a row), and what a `record` call costs the caller's
/// thread, both for a point that is queued and for one that thinning leaves out.
func runStorageBench(points: Int = 400_000, devices: Int = 1_000) {
    let dir = NSTemporaryDirectory() + "whereabouts-storage-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let ids = (0..<devices).map { "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-\($0)" }
    let clock = ContinuousClock()

    var unthinned = WriterConfiguration()
    unthinned.trackInterval = 0
    unthinned.stillInterval = 0
    unthinned.capacity = points + 1  // measure the disk, not the queue bound
    let writer = TrackWriter(path: dir + "/bench.db", configuration: unthinned)
    let start = clock.now
    for i in 0..<points {
        let step = Double(i / devices)
        writer.record(TrackPoint(device: ids[i % devices], t: 1_764_410_000 + step, x: step * 0.5, y: 2, z: 1,
                                 floor: "ground", room: "kitchen", confidence: 0.8))
    }
    let queued = clock.now
    let flushed = writer.flush(timeout: 300)
    let done = clock.now
    let stats = writer.statistics
    writer.close()
    let enqueueSeconds = seconds(start.duration(to: queued)), totalSeconds = seconds(start.duration(to: done))
    print("storage: \(points) track points of \(devices) devices into SQLite (WAL, synchronous=NORMAL)")
    print("storage: \(benchFixed(Double(stats.written) / totalSeconds, 0)) track points written/s "
          + "(\(stats.commits) commits, last took \(benchFixed(stats.lastCommitLatency * 1000, 1)) ms, "
          + "dropped \(stats.droppedFull), flushed \(flushed))")
    print("storage: record() on the caller's thread: \(benchFixed(enqueueSeconds / Double(points) * 1e9, 0)) ns per queued point")

    // The common case in a live site: most positions of a still device are thinned out.
    let thinning = TrackWriter(path: dir + "/thin.db")
    let thinStart = clock.now
    for i in 0..<points {
        thinning.record(TrackPoint(device: ids[i % devices], t: 1_764_410_000 + Double(i / devices) * 0.1,
                                   x: 1, y: 2, z: 1, floor: "ground", room: "kitchen", confidence: 0.8))
    }
    let thinSeconds = seconds(thinStart.duration(to: clock.now))
    thinning.flush(timeout: 60)
    let thinStats = thinning.statistics
    thinning.close()
    print("storage: record() of a still device at 10 Hz: \(benchFixed(thinSeconds / Double(points) * 1e9, 0)) ns per point, "
          + "\(thinStats.written) of \(points) written (\(thinStats.thinned) thinned)")
}

private func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

private func benchFixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return decimals == 0 ? String(Int(rounded)) : String(rounded)
}

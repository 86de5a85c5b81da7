import BLE
import CMallocCounter
import Foundation

/// The decoding bar: HCI report + AD decoding, ≥ 5 million reports/s on one core, no allocation per
/// report on the path that yields RSSI + identity (`AdvertisingDecoder.forEachReport`).
///
/// The mix is every advertising event of the real capture plus the 285 ble_monitor events
/// (iBeacon, AltBeacon, extended reports, sensor payloads), packed into one buffer.
func runDecoderBench(seconds: Double = 3) {
    guard let packets = benchPackets(), !packets.offsets.isEmpty else {
        print("decoder: fixtures not found (run from the repository root)")
        return
    }
    var sink: UInt64 = 0
    var reports = 0
    var errors = 0
    packets.bytes.withUnsafeBytes { raw in
        // Warm up, then time whole passes over the mix.
        _ = decodePass(raw, packets.offsets, &sink, &errors)
        let clock = ContinuousClock()
        let mallocsBefore = whereabouts_malloc_count()
        let start = clock.now
        var elapsed = Duration.zero
        repeat {
            for _ in 0..<100 { reports += decodePass(raw, packets.offsets, &sink, &errors) }
            elapsed = start.duration(to: clock.now)
        } while elapsed < .seconds(seconds)
        let mallocs = whereabouts_malloc_count() - mallocsBefore
        let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let perSecond = Double(reports) / secs
        print("decoder: \(packets.offsets.count) events in the mix, \(reports) reports in \(fixed(secs, 2)) s on one thread")
        print("decoder: \(fixed(perSecond / 1e6, 2)) million reports/s (bar ≥ 5), "
              + "\(fixed(Double(mallocs) / Double(max(reports, 1)), 6)) allocations per report (bar 0; \(mallocs) in total)")
        print("decoder: (\(errors) decode errors, checksum \(sink & 0xFFFF))")
    }
}

/// One pass over the mix through the fast path; returns the reports seen.
@inline(never)
private func decodePass(_ raw: UnsafeRawBufferPointer, _ offsets: [Range<Int>], _ sink: inout UInt64, _ errors: inout Int) -> Int {
    var count = 0
    for range in offsets {
        let packet = UnsafeRawBufferPointer(rebasing: raw[range])
        do {
            count += try AdvertisingDecoder.forEachReport(h4: packet) { view in
                // Use what the edge publishes so nothing is optimised away.
                var mix = view.header.address.rawValue &+ UInt64(UInt8(bitPattern: view.header.rssi ?? 0))
                mix &+= UInt64(UInt8(bitPattern: view.txPower ?? 0))
                switch view.identity {
                case .iBeacon(let uuid, let major, let minor)?: mix &+= uuid.low &+ UInt64(major) &+ UInt64(minor)
                case .altBeacon(let id1, let id2, _)?: mix &+= id1.high &+ UInt64(id2)
                case .eddystone(_, let instance)?: mix &+= instance
                case .mac(let address)?: mix &+= address.rawValue >> 3
                case nil: mix &+= 1
                }
                sink = sink &* 31 &+ mix
            }
        } catch {
            errors += 1
        }
    }
    return count
}

/// The packets of the mix, contiguous, with each packet's range.
private func benchPackets() -> (bytes: [UInt8], offsets: [Range<Int>])? {
    let fixtures = "Tests/BLETests/Fixtures/"
    guard let capture = FileManager.default.contents(atPath: fixtures + "horizon74_btsnoop_hci.log"),
          let cases = FileManager.default.contents(atPath: fixtures + "ble_monitor_hci_cases.jsonl") else { return nil }
    var packets: [[UInt8]] = BtsnoopReader.records(in: Array(capture)).records.compactMap(\.h4).filter { h4 in
        h4.count > 4 && h4[0] == 0x04 && h4[1] == 0x3E && (h4[3] == 0x02 || h4[3] == 0x0D)
    }
    for line in String(decoding: cases, as: UTF8.self).split(separator: "\n") {
        guard let key = line.range(of: "\"h4_hex\": \"") else { continue }
        if let bytes = Hex.bytes(line[key.upperBound...].prefix { $0 != "\"" }) { packets.append(bytes) }
    }
    var bytes: [UInt8] = []
    var offsets: [Range<Int>] = []
    for p in packets {
        offsets.append(bytes.count..<(bytes.count + p.count))
        bytes += p
    }
    return (bytes, offsets)
}

private func fixed(_ v: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let n = (v * scale).rounded() / scale
    return "\(n)"
}

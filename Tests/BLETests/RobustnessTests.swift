import BLE
import Testing
import TestSupport

/// Property tests: no input may crash the decoders or make them read out of bounds. Each
/// case also checks that an error's offset lies inside the input. Buffers are exact-size
/// copies, so a read past the end would trip the address sanitizer or debug checks.
@Suite struct RobustnessTests {
    /// Decodes through both paths and checks what can be checked of any outcome.
    private func decodeAll(_ packet: [UInt8]) -> Int {
        let (reports, error) = AdvertisingReport.decode(h4: packet)
        if let error { #expect(error.offset >= 0 && error.offset <= packet.count, "\(error) for \(Hex.string(packet))") }
        var fast = 0
        let fastError: DecodeError? = packet.withUnsafeBytes { raw in
            do throws(DecodeError) {
                _ = try AdvertisingDecoder.forEachReport(h4: raw) { view in
                    fast += 1
                    _ = view.identity?.id
                    if let e = view.summary.error { #expect(e.offset >= view.dataOffset && e.offset < packet.count) }
                }
                return nil
            } catch { return error }
        }
        #expect(fast == reports.count && fastError == error)
        for report in reports { _ = report.frame?.identity?.id; _ = report.fields.services.map(\.uuid.description) }
        return reports.count
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...80, using: &rng)
            var packet = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Bias half of them into LE advertising events so the deep paths are reached.
            if count > 4 && Bool.random(using: &rng) {
                packet[0] = 0x04; packet[1] = 0x3E; packet[2] = UInt8(truncatingIfNeeded: count - 3)
                packet[3] = Bool.random(using: &rng) ? 0x02 : 0x0D
                packet[4] = UInt8.random(in: 0...3, using: &rng)
            }
            _ = decodeAll(packet)
        }
    }

    @Test func truncationsOfRealEventsNeverCrash() throws {
        let packets = try Fixtures.goldenPackets + Fixtures.bleMonitorCases.map { [UInt8](hex: $0["h4_hex"] as? String ?? "") }
        var errors = 0
        for packet in packets {
            for length in 0..<packet.count {
                let cut = Array(packet[..<length])
                if AdvertisingReport.decode(h4: cut).error != nil { errors += 1 }
                _ = decodeAll(cut)
            }
        }
        // Every cut of an advertising event is short of its declared length: all must fail.
        #expect(errors == packets.reduce(0) { $0 + $1.count })
    }

    @Test func corruptedLengthFieldsNeverCrash() throws {
        let packets = try Fixtures.goldenPackets + Fixtures.bleMonitorCases.map { [UInt8](hex: $0["h4_hex"] as? String ?? "") }
        var rng = SplitMix64(seed: 0x5EED_0002)
        var cases = 0
        for packet in packets {
            // Event length, report count, data length, and a few AD length bytes.
            let dataLengthIndex = packet[3] == 0x02 ? 13 : 29
            var positions = [2, 4, dataLengthIndex]
            var i = dataLengthIndex + 1
            while i < packet.count - 1 { positions.append(i); i += Int(packet[i]) + 1 }
            for position in positions where position < packet.count {
                for _ in 0..<8 {
                    var bad = packet
                    bad[position] = UInt8.random(in: 0...255, using: &rng)
                    _ = decodeAll(bad)
                    cases += 1
                }
            }
        }
        #expect(cases > 5_000)
    }

    @Test func randomADAndBtsnoopBytesNeverCrash() {
        var rng = SplitMix64(seed: 0x5EED_0003)
        for _ in 0..<20_000 {
            let data = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let (structures, error) = ADStructure.parse(data)
            if let error { #expect(error.offset < data.count) }
            for s in structures { _ = s.value.withUnsafeBytes { BeaconFrame(adType: s.type, value: $0) }; _ = s.field }
            _ = ADFields(structures).names.map(\.name.readableText)
            var file = BtsnoopWriter(datalink: .h4).bytes + data
            if data.count > 8 { file[16 + 4] = 0 }
            _ = BtsnoopReader.records(in: file)
        }
    }
}

// libFuzzer target "hci": one H4 packet (HCI event bytes, type byte first), as the edge reads
// it from an adapter. Compiled into module BLE with the BLE sources (tools/fuzz/run.sh).
//
// Besides "no crash", two oracles: the allocation-free fast path and the copying decoder
// deliver the same reports and the same error; and every AD structure the walk delivers lies
// inside the advertising data.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCIEvent(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let packet = Array(UnsafeBufferPointer(start: data, count: size))
    let decoded = AdvertisingReport.decode(h4: packet)
    var fast: [AdvertisingReportHeader] = []
    var reassembler = ExtendedReassembler(maximumPending: 4)
    let fastResult = packet.withUnsafeBytes { raw in
        Result { () throws(DecodeError) -> Int in
            try AdvertisingDecoder.forEachReport(h4: raw) { view in
                fast.append(view.header)
                _ = view.identity?.id
                _ = view.txPower
                _ = reassembler.add(view)
            }
        }
    }
    oracle(fast == decoded.reports.map(\.header), "fast path and copying decoder disagree")
    if case .failure(let error) = fastResult { oracle(error == decoded.error, "errors disagree") }
    for report in decoded.reports { exercise(report) }
    _ = reassembler.flush()
    // The same bytes as bare advertising data, as `whereabouts decode --ad` takes it.
    exerciseAD(packet)
    return 0
}

private func exercise(_ report: AdvertisingReport) {
    _ = report.identity?.id
    _ = report.identity?.kind
    _ = report.frame?.identity
    _ = report.frame?.measuredPowerAt1m
    _ = report.header.address.description
    for s in report.structures {
        oracle(s.value.count + 2 <= report.data.count, "structure longer than its data")
        _ = s.field
    }
}

private func exerciseAD(_ data: [UInt8]) {
    let (structures, error) = ADStructure.parse(data)
    var end = 0
    for s in structures {
        oracle(s.offset >= end && s.offset + 2 + s.value.count <= data.count, "AD structure outside the data")
        end = s.offset + 2 + s.value.count
        if case .other = s.field {} // decode every field; unknown types are fine
        if let frame = s.value.withUnsafeBytes({ BeaconFrame(adType: s.type, value: $0) }) {
            _ = frame.identity?.id
            if case .eddystoneURL(let url) = frame { _ = url.url }
        }
    }
    if let error { oracle(error.offset >= end && error.offset < data.count, "AD error offset \(error.offset)") }
    _ = data.withUnsafeBytes { ADSummary($0) }
}

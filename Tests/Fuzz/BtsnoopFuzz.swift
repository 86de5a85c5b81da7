// libFuzzer target "btsnoop": a whole btsnoop capture, as `whereabouts decode --btsnoop` and
// `whereabouts-edge --replay` read it. Compiled into module BLE with the BLE sources.
//
// Oracles: records never claim more bytes than the file has, indices count up from 0, and
// every record that carries an HCI packet decodes (or fails) without a crash.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBtsnoop(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let (datalink, records, error) = BtsnoopReader.records(in: bytes)
    oracle(datalink != nil || records.isEmpty, "records without a header")
    var stored = Btsnoop.headerSize
    var reassembler = ExtendedReassembler(maximumPending: 8)
    for (i, record) in records.enumerated() {
        oracle(record.index == i, "record index \(record.index) at position \(i)")
        stored += Btsnoop.recordHeaderSize + record.payload.count
        _ = record.unixTime
        guard let h4 = record.h4 else { continue }
        for report in AdvertisingReport.decode(h4: h4).reports {
            _ = report.identity?.id
            _ = reassembler.add(report)
        }
    }
    oracle(stored <= max(size, Btsnoop.headerSize), "records cover \(stored) of \(size) bytes")
    if let error { oracle(error.offset >= 0 && error.offset <= size, "error offset \(error.offset) of \(size)") }
    _ = reassembler.flush()
    return 0
}

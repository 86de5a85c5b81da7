import BLE
import Testing

// Inputs the fuzzers of Tests/Fuzz found (tools/fuzz/run.sh), kept so they stay fixed.

/// fuzz target "btsnoop", on its first seed (the real capture cut at 200 bytes): the records
/// before the cut came back with no datalink, so a caller could not tell how to read them.
@Test func recordsBeforeALaterErrorKeepTheirDatalink() throws {
    let capture = try Fixtures.bytes("horizon74_btsnoop_hci.log")
    let (datalink, records, error) = BtsnoopReader.records(in: Array(capture.prefix(200)))
    #expect(datalink == .h4)
    #expect(records.count == 5)
    #expect(error?.kind == .truncated)
    #expect(BtsnoopReader.records(in: Array(capture.prefix(10))).datalink == nil)
}


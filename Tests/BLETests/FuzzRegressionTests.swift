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

/// fuzz target "btsnoop": a record whose timestamp has the top bit set (a damaged file) made
/// `unixTime` overflow and trap; `whereabouts-edge --replay` reads every record's time.
@Test func aDamagedRecordTimeIsANumberNotATrap() throws {
    var file = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA]
    file += [0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 0]  // lengths, flags (received event), drops
    file += [0x80, 0, 0, 0, 0, 0, 0, 0]                        // timestamp: Int64.min
    file += [0x04, 0x0E, 0x01, 0x00]
    let (_, records, error) = BtsnoopReader.records(in: file)
    #expect(error == nil)
    let time = try #require(records.first?.unixTime)
    #expect(time.isFinite && time < -9e12)
}

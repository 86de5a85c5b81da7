@testable import Edge
import Testing
import Wire

@Suite("Reading filter rules")
struct ReadingFilterRulesTests {
    @Test func excludeWinsOverInclude() {
        let rules = ReadingFilter.Rules(include: [Glob("mac:*")], exclude: [Glob("mac:00:*")])
        #expect(rules.allows(id: "mac:11:22:33:44:55:66"))
        #expect(!rules.allows(id: "mac:00:22:33:44:55:66"))
        #expect(!rules.allows(id: "iBeacon:x-1-2"))
    }

    @Test func rssiFloorAndPerDeviceInterval() {
        let rules = ReadingFilter.Rules(minRSSI: -90, minInterval: 1)
        #expect(!rules.accepts(rssi: -91, at: 10, lastAccepted: nil))
        #expect(rules.accepts(rssi: -90, at: 10, lastAccepted: nil))
        #expect(!rules.accepts(rssi: -50, at: 10.5, lastAccepted: 10))
        #expect(rules.accepts(rssi: -50, at: 11, lastAccepted: 10))
    }
}

@Suite("H4 hex lines on stdin")
struct HexPacketAssemblerTests {
    func packets(_ lines: [String]) -> (packets: [[UInt8]], bad: Int) {
        var assembler = HexPacketAssembler()
        var out: [[UInt8]] = []
        var bad = 0
        for line in lines {
            var line = line
            let ok = line.withUTF8 { assembler.feed($0) { out.append($0) } }
            if !ok { bad += 1 }
        }
        assembler.finish { out.append($0) }
        return (out, bad)
    }

    @Test func plainLinesAreOnePacketEach() {
        let r = packets(["04 3e 03 02 00 01\n", "043E0102\n", "\n"])
        #expect(r.packets == [[0x04, 0x3E, 0x03, 0x02, 0x00, 0x01], [0x04, 0x3E, 0x01, 0x02]])
        #expect(r.bad == 0)
    }

    @Test func hcidumpStyleContinuationLines() {
        let r = packets(["> 04 3E 05 02 01\n", "  00 00 AB\n", "> 04 0E 01\n", "  02\n"])
        #expect(r.packets == [[0x04, 0x3E, 0x05, 0x02, 0x01, 0x00, 0x00, 0xAB], [0x04, 0x0E, 0x01, 0x02]])
    }

    @Test func garbageLinesAreCountedAndDropTheirPacket() {
        let r = packets(["HCI sniffer - Bluetooth packet analyzer ver 5.66\n", "> 04 3E 02\n", "  zz 01\n", "04 3e 0\n", "04 0e\n"])
        #expect(r.bad == 3)
        #expect(r.packets == [[0x04, 0x0E]])
    }
}

import BLE
import Foundation
import Options
import Wire
import YAML

let decodeCommand = Command(
    name: "whereabouts decode",
    abstract: "decode HCI packets, btsnoop captures or AD payloads to JSON",
    options: [
        .value("hex", "HEX", help: "One H4 packet in hex (04 3e …).", group: "input"),
        .value("ad", "HEX", help: "An advertising data payload alone (AD structures).", group: "input"),
        .value("btsnoop", "FILE", help: "A btsnoop capture (datalink 1001, 1002 or 2001, as btmon -w and Android write).", group: "input"),
    ],
    usageNote: "(stdin: H4 hex lines)",
    discussion: """
        Prints one JSON object per advertising report: event, addr, addr_type, random_kind, event_type,
        rssi, tx_power (a frame's measured power at 1 m, else the AD TX Power Level, else the extended
        header's), data, ad [[type, hex]], id, kind, frame (the decoded beacon fields), then every AD
        field: flags, tx_power_level, appearance, names, services (UUIDs widened to 128 bits),
        service_data, manufacturer_data and, when some structure has a wrong length, malformed. Extended-report
        fragments are joined first. Packets that are not advertising reports are skipped; a malformed
        one prints {"error", "offset", …} and decoding goes on. Standard input takes one packet per
        line: plain hex, hcidump -R lines (> 04 3E …, continued on indented lines) or JSON lines
        with an "h4_hex" field.
        """)

func runDecode(_ arguments: [String]) -> Int32 {
    runTool(decodeCommand, arguments: arguments) { args in
        var decoder = PacketPrinter()
        if let hex = args.string("hex") {
            guard args.string("ad") == nil && args.string("btsnoop") == nil else { throw UsageError("give one of --hex, --ad, --btsnoop") }
            guard let packet = Hex.bytes(hex) else { throw UsageError("--hex expects hex digits") }
            decoder.packet(packet, context: { _ in })
        } else if let hex = args.string("ad") {
            guard args.string("btsnoop") == nil else { throw UsageError("give one of --hex, --ad, --btsnoop") }
            guard let data = Hex.bytes(hex) else { throw UsageError("--ad expects hex digits") }
            decoder.advertisingData(data)
        } else if let path = args.string("btsnoop") {
            return decoder.capture(at: path)
        } else if let reason = decoder.lines() {
            // Exit 1 as locate and the edge do: what came before the fault was decoded, but
            // the input was not read to its end.
            decoder.finish()
            printError("whereabouts decode: reading standard input failed: \(reason); the lines before the fault were decoded")
            return ExitCode.failure
        }
        decoder.finish()
        return ExitCode.success
    }
}

/// Turns packets into JSON lines on standard output.
struct PacketPrinter {
    private var reassembler = ExtendedReassembler()
    var json = JSONWriter(capacity: 1024)

    /// Decodes one H4 packet; `context` adds the source's own fields (time, record, line).
    mutating func packet(_ packet: [UInt8], context: (inout JSONWriter) -> Void) {
        let (reports, error) = AdvertisingReport.decode(h4: packet)
        for report in reports {
            if let whole = reassembler.add(report) { emit(whole, context) }
        }
        if let error {
            emitError("\(error.kind)", offset: error.offset) { json in
                context(&json)
                json.key("hex"); json.hex(packet)
            }
        }
    }

    /// Decodes every record of a capture; false when a record is damaged (its error is
    /// printed, and the records after it cannot be found).
    mutating func capture(_ bytes: [UInt8]) -> Bool {
        var reader: BtsnoopReader
        do { reader = try BtsnoopReader(bytes) } catch {
            emitError("\(error.kind)", offset: error.offset) { _ in }
            return false
        }
        while true {
            do {
                guard let record = try reader.next() else { return true }
                guard record.packetType == .event, let h4 = record.h4 else { continue }
                packet(h4) { json in
                    json.key("t"); json.value(record.unixTime, decimals: 6)
                    json.field("record", record.index)
                }
            } catch {
                emitError("\(error.kind)", offset: error.offset) { _ in }
                return false
            }
        }
    }

    /// Standard input: one packet per line, in any of the spellings `--help` lists; the
    /// system's reason when reading it failed before its end, else nil.
    mutating func lines() -> String? {
        var pending: (bytes: [UInt8], line: Int)?
        var number = 0
        var reader = LineReader.descriptor(0, limit: LineReader.h4LineLimit)
        reader.forEach { line in
            number += 1
            switch line {
            case .text(let bytes):
                take(String(decoding: bytes, as: UTF8.self), number, &pending)
            case .tooLong(let length):
                if let p = pending { decodeLine(p.bytes, p.line) }
                pending = nil
                emitError("line of \(length) bytes is longer than \(LineReader.h4LineLimit), skipped", offset: 0) { $0.field("line", number) }
            }
            return true
        }
        if let p = pending { decodeLine(p.bytes, p.line) }
        if reader.failed { emitError("reading standard input failed", offset: 0) { $0.field("line", number + 1) } }
        return reader.failureReason
    }

    /// One line: a packet, the continuation of an hcidump packet, or an error.
    private mutating func take(_ line: String, _ number: Int, _ pending: inout (bytes: [UInt8], line: Int)?) {
        let line = line.hasSuffix("\r") ? String(line.dropLast()) : line
        let text = line.drop { $0 == " " || $0 == "\t" }
        if text.isEmpty || text.hasPrefix("#") { return }
        let continues = text.count < line.count && pending != nil && !text.hasPrefix(">") && !text.hasPrefix("<")
        if continues, let bytes = Hex.bytes(text) {
            pending?.bytes += bytes
            return
        }
        if let p = pending { decodeLine(p.bytes, p.line) }
        pending = nil
        guard let (bytes, dumped) = parseLine(text) else {
            emitError("not an H4 hex line", offset: 0) { $0.field("line", number) }
            return
        }
        if dumped { pending = (bytes, number) } else { decodeLine(bytes, number) }
    }

    /// The packet of one line, and whether it is an hcidump line that may continue.
    private func parseLine(_ text: Substring) -> ([UInt8], Bool)? {
        if text.hasPrefix("{") {
            guard let range = text.range(of: "\"h4_hex\""), let open = text[range.upperBound...].firstIndex(of: "\"") else { return nil }
            let value = text[text.index(after: open)...].prefix { $0 != "\"" }
            return Hex.bytes(value).map { ($0, false) }
        }
        if text.hasPrefix(">") || text.hasPrefix("<") { return Hex.bytes(text.dropFirst()).map { ($0, true) } }
        return Hex.bytes(text).map { ($0, false) }
    }

    private mutating func decodeLine(_ bytes: [UInt8], _ line: Int) {
        packet(bytes) { $0.field("line", line) }
    }

    /// `--ad`: the payload alone, with no address or RSSI.
    mutating func advertisingData(_ data: [UInt8]) {
        let report = AdvertisingReport(header: AdvertisingReportHeader(format: .legacy, eventType: 0, addressType: .anonymous,
                                                                       address: BluetoothAddress(rawValue: 0), rssi: nil), data: data)
        json.reset()
        json.objectStart()
        writeData(report)
        json.objectEnd()
        print(json.string)
    }

    /// Prints advertisements whose last fragment never came.
    mutating func finish() {
        for report in reassembler.flush() { emit(report) { _ in } }
    }

    private mutating func emit(_ report: AdvertisingReport, _ context: (inout JSONWriter) -> Void) {
        let h = report.header
        json.reset()
        json.objectStart()
        context(&json)
        json.field("event", h.format.description)
        json.field("addr", h.address.description)
        json.field("addr_type", Int(h.addressType.rawValue))
        json.key("random_kind"); optional(h.randomKind?.description)
        json.field("event_type", Int(h.eventType))
        json.key("rssi"); optional(h.rssi.map(Int.init))
        if h.format == .extended { writeExtended(h, fragments: report.fragments) }
        writeData(report)
        json.objectEnd()
        print(json.string)
    }

    private mutating func writeExtended(_ h: AdvertisingReportHeader, fragments: Int) {
        json.field("data_status", h.dataStatus.description)
        json.field("primary_phy", Int(h.primaryPHY))
        json.field("secondary_phy", Int(h.secondaryPHY))
        json.field("sid", Int(h.sid))
        json.key("reported_tx_power"); optional(h.reportedTxPower.map(Int.init))
        json.field("periodic_interval", Int(h.periodicInterval))
        if let direct = h.directAddress { json.field("direct_addr", direct.description) }
        if fragments > 1 { json.field("fragments", fragments) }
    }

    /// The fields every output shares: tx_power, data, ad, name, id, kind, frame, then the
    /// decoded AD fields.
    private mutating func writeData(_ report: AdvertisingReport) {
        json.key("tx_power"); optional(report.txPower.map(Int.init))
        json.key("data"); json.hex(report.data)
        json.key("ad")
        json.arrayStart()
        for s in report.structures {
            json.arrayStart(); json.value(Int(s.type)); json.hex(s.value); json.arrayEnd()
        }
        json.arrayEnd()
        if let error = report.adError {
            json.key("ad_error")
            json.objectStart(); json.field("error", "\(error.kind)"); json.field("offset", error.offset); json.objectEnd()
        }
        for s in report.structures {
            if case .localName(let name, _) = s.field, let text = name.string { json.field("name", text); break }
        }
        let identity = report.header.addressType == .anonymous ? report.frame?.identity : report.identity
        json.key("id"); optional(identity?.id)
        json.key("kind"); optional(identity?.kind)
        json.key("frame")
        if let frame = report.frame { writeFrame(frame) } else { json.null() }
        writeFields(report.fields)
    }

    private mutating func writeFrame(_ frame: BeaconFrame) {
        json.objectStart()
        json.field("type", frame.kind.description)
        switch frame {
        case .iBeacon(let f):
            json.field("uuid", f.uuid.description); json.field("major", Int(f.major)); json.field("minor", Int(f.minor))
        case .altBeacon(let f):
            json.field("manufacturer", Int(f.manufacturer)); json.field("id1", f.id1.description)
            json.field("id2", Int(f.id2)); json.field("id3", Int(f.id3))
        case .eddystoneUID(let f):
            json.field("namespace", f.namespace.hex); json.key("instance"); json.hex(instanceBytes(f.instance))
            json.field("tx_power_0m", Int(f.txPowerAt0m))
        case .eddystoneURL(let f):
            json.key("url"); optional(f.url); json.key("encoded"); json.hex([f.scheme] + f.encoded)
            json.field("tx_power_0m", Int(f.txPowerAt0m))
        case .eddystoneEID(let f):
            json.key("eid"); json.hex((0..<8).map { UInt8(truncatingIfNeeded: f.eid >> UInt64(56 - 8 * $0)) })
            json.field("tx_power_0m", Int(f.txPowerAt0m))
        case .eddystoneTLM(let tlm):
            writeTelemetry(tlm)
        }
        if let power = frame.measuredPowerAt1m { json.field("measured_power", Int(power)) }
        json.objectEnd()
    }

    private mutating func writeTelemetry(_ tlm: EddystoneTLM) {
        switch tlm {
        case .plain(let t):
            json.field("version", 0)
            json.key("battery_mv"); optional(t.batteryMillivolts == 0 ? nil : Int(t.batteryMillivolts))
            json.key("temperature"); if let c = t.temperature { json.value(c, decimals: 3) } else { json.null() }
            json.field("adv_count", Int(t.advertisingCount))
            json.field("uptime_s", Double(t.uptimeDeciseconds) / 10, decimals: 1)
        case .encrypted(let e):
            json.field("version", 1)
            json.key("etlm"); json.hex(e.etlm)
            json.field("salt", Int(e.salt)); json.field("mic", Int(e.check))
        }
    }

    private func instanceBytes(_ instance: UInt64) -> [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: instance >> UInt64(40 - 8 * $0)) }
    }

    private mutating func optional(_ value: String?) { if let value { json.value(value) } else { json.null() } }
    private mutating func optional(_ value: Int?) { if let value { json.value(value) } else { json.null() } }

    private mutating func emitError(_ message: String, offset: Int, _ extra: (inout JSONWriter) -> Void) {
        json.reset()
        json.objectStart()
        json.field("error", message)
        json.field("offset", offset)
        extra(&json)
        json.objectEnd()
        print(json.string)
    }
}
